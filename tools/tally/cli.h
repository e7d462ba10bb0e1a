/* Helpers shared by the CLI's subcommands: error lines, option values, JSON, value text. */
#ifndef TALLY_CLI_H
#define TALLY_CLI_H

#include "tally.h"

#include <stdio.h>

/* Exit codes: usage errors (the command line itself is wrong) and everything else. */
#define CLI_EXIT_USAGE 2
#define CLI_EXIT_FAIL 1

#if defined(__GNUC__)
#define CLI_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define CLI_PRINTF(f, a)
#endif

/* Print one line "tally: <message>" to stderr. */
void cli_error(const char *fmt, ...) CLI_PRINTF(1, 2);
/* Print a library failure: "tally: <tally_errmsg(ctx)> [STATUS_NAME]"; returns CLI_EXIT_FAIL. */
int cli_lib_error(const tally_context *ctx, tally_status s);

/* Parse a whole decimal integer in [lo, hi]; 0 on success, -1 otherwise. */
int cli_parse_i64(const char *s, long long lo, long long hi, long long *out);

/* Option values shared by the subcommands: 0, or the usage error printed ("--accuracy X:
 * must be default or fast") and CLI_EXIT_USAGE returned. */
int cli_parse_accuracy(const char *s, tally_accuracy *out);
int cli_parse_nan(const char *s, tally_nan *out);
int cli_check_dtype(const char *s); /* --dtype: a name io.h reads */

/* getopt_long's ':' (a missing value) or anything else (an unknown option) for the
 * subcommand cmd ("tally scan"): the line printed; returns CLI_EXIT_USAGE. */
int cli_option_error(int c, char *const *argv, const char *cmd);

/* Write s as a JSON string (with quotes) to f. */
void cli_json_string(FILE *f, const char *s);

/* Text of one element of dtype t at p, into buf (at least 48 bytes). Floats are %.17g (f64),
 * %.9g (f32), %.5g (f16), %.4g (bf16): enough digits to read back the same value. NaN and
 * infinities are nan, inf, -inf; with json they are quoted ("nan"), and bools are
 * true/false in both forms. */
void cli_format_value(char *buf, size_t size, tally_dtype t, const void *p, int json);

#endif
