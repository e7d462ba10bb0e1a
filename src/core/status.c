/* Status names and messages; the per-context and per-thread error slots. */
#include "internal.h"

#include <stdio.h>
#include <string.h>

static const char *const status_names[] = {
#define X(name, msg) #name,
    TALLY_STATUS_LIST(X)
#undef X
};
static const char *const status_msgs[] = {
#define X(name, msg) msg,
    TALLY_STATUS_LIST(X)
#undef X
};

const char *tally_status_name(tally_status s) {
  if ((unsigned)s >= (unsigned)TALLY_STATUS_COUNT_) return "TALLY_UNKNOWN_STATUS";
  return status_names[s];
}

const char *tally_status_str(tally_status s) {
  if ((unsigned)s >= (unsigned)TALLY_STATUS_COUNT_) return "unknown status code";
  return status_msgs[s];
}

const char *tally_version(void) { return TALLY_VERSION_STRING; }

/* Failures with no context (tally_open, name parsing) land here, one slot per thread. */
static _Thread_local char thread_errmsg[TALLY_ERRMSG_MAX];

tally_status tally__fail(const tally_context *ctx, tally_status s, const char *fmt, ...) {
  /* The error slot is logically mutable state of a const context: the message of the
   * last failure, like errno. */
  char *buf = ctx ? ((tally_context *)ctx)->errmsg : thread_errmsg;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, TALLY_ERRMSG_MAX, fmt, ap);
  va_end(ap);
  return s;
}

void tally__clear_error(const tally_context *ctx) {
  char *buf = ctx ? ((tally_context *)ctx)->errmsg : thread_errmsg;
  buf[0] = '\0';
}

const char *tally_errmsg(const tally_context *ctx) {
  return ctx ? ctx->errmsg : thread_errmsg;
}
