/* tally: the command-line tool. `tally [--help|--version] COMMAND ...` runs one subcommand
 * (one file each: cmd_info.c, cmd_reduce.c, cmd_scan.c, cmd_hist.c, cmd_bench.c). */
#include "cli.h"
#include "commands.h"

#include <stdio.h>
#include <string.h>

static const char main_usage[] =
    "usage: tally [--help | --version] COMMAND [ARGS...]\n"
    "\n"
    "Parallel reductions on the command line.\n"
    "\n"
    "commands:\n"
    "  info      backends, devices, the default device's details and variants\n"
    "  reduce    reduce a file's numbers: tally reduce OP FILE [FILE2] [options]\n"
    "  scan      every partial result (prefix scan): tally scan OP FILE [-o OUT.npy]\n"
    "  hist      a histogram of a file's numbers: tally hist FILE --bins N\n"
    "  bench     time reductions and their variants against peers and the bandwidth probe\n"
    "\n"
    "Run 'tally COMMAND --help' for a command's options; 'man tally' for the rest.\n"
    "environment: TALLY_DEVICE (the default device), TALLY_CPU_ISA (scalar, avx2, avx512)\n";

typedef struct {
  const char *name;
  int (*run)(int argc, char **argv);
} command;

static const command commands[] = {
    {"info", tally_cmd_info},
    {"reduce", tally_cmd_reduce},
    {"bench", tally_cmd_bench},
    {"scan", tally_cmd_scan},
    {"hist", tally_cmd_hist},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static const command *find_command(const char *name) {
  for (size_t i = 0; i < NCOMMANDS; i++)
    if (strcmp(commands[i].name, name) == 0) return &commands[i];
  return NULL;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fputs(main_usage, stderr);
    return CLI_EXIT_USAGE;
  }
  const char *first = argv[1];
  if (strcmp(first, "--help") == 0 || strcmp(first, "-h") == 0) {
    fputs(main_usage, stdout);
    return 0;
  }
  if (strcmp(first, "--version") == 0 || strcmp(first, "-V") == 0) {
    printf("tally %s\n", tally_version());
    return 0;
  }
  if (strcmp(first, "help") == 0) {
    /* `tally help reduce` is `tally reduce --help`. */
    if (argc < 3) { fputs(main_usage, stdout); return 0; }
    const command *c = find_command(argv[2]);
    if (!c) {
      cli_error("%s: unknown command (commands: info, reduce, scan, hist, bench)", argv[2]);
      return CLI_EXIT_USAGE;
    }
    static char help_opt[] = "--help";
    char *help_argv[] = {argv[2], help_opt, NULL};
    return c->run(2, help_argv);
  }
  if (first[0] == '-') {
    cli_error("%s: unknown option (see tally --help)", first);
    return CLI_EXIT_USAGE;
  }
  const command *c = find_command(first);
  if (!c) {
    cli_error("%s: unknown command (commands: info, reduce, scan, hist, bench)", first);
    return CLI_EXIT_USAGE;
  }
  return c->run(argc - 1, argv + 1);
}
