/* Status names and messages for every code, and for values out of range. */
#include "check.h"
#include "tally.h"

int main(void) {
  CHECK(TALLY_OK == 0, "TALLY_OK is %d", (int)TALLY_OK);
  static const struct {
    tally_status s;
    const char *name, *msg;
  } all[] = {
      {TALLY_OK, "TALLY_OK", "success"},
      {TALLY_EINVAL, "TALLY_EINVAL", "invalid argument"},
      {TALLY_ENOMEM, "TALLY_ENOMEM", "out of memory"},
      {TALLY_EUNSUPPORTED, "TALLY_EUNSUPPORTED", "not supported"},
      {TALLY_ENODEV, "TALLY_ENODEV", "no such device"},
      {TALLY_EDRIVER, "TALLY_EDRIVER", "driver or runtime library unavailable"},
      {TALLY_EEMPTY, "TALLY_EEMPTY", "empty input"},
      {TALLY_EPARSE, "TALLY_EPARSE", "parse error"},
      {TALLY_ECOMPILE, "TALLY_ECOMPILE", "kernel compilation failed"},
      {TALLY_EBACKEND, "TALLY_EBACKEND", "backend failure"},
      {TALLY_EIO, "TALLY_EIO", "input/output error"},
      {TALLY_EINTERNAL, "TALLY_EINTERNAL", "internal error"},
  };
  int n = (int)(sizeof all / sizeof all[0]);
  CHECK(n == TALLY_STATUS_COUNT_, "the list has %d codes, the header %d", n, (int)TALLY_STATUS_COUNT_);
  for (int i = 0; i < n; i++) {
    const char *name = tally_status_name(all[i].s), *msg = tally_status_str(all[i].s);
    CHECK(name && strcmp(name, all[i].name) == 0, "name of %d: %s", (int)all[i].s, name ? name : "NULL");
    CHECK(msg && strcmp(msg, all[i].msg) == 0, "message of %s: %s", all[i].name, msg ? msg : "NULL");
  }
  const tally_status bad[] = {TALLY_STATUS_COUNT_, (tally_status)-1, (tally_status)1000,
                              (tally_status)0x7fffffff};
  const char *fixed = tally_status_str(bad[0]);
  for (int i = 0; i < 4; i++) {
    const char *name = tally_status_name(bad[i]), *msg = tally_status_str(bad[i]);
    CHECK(name && strcmp(name, "TALLY_UNKNOWN_STATUS") == 0, "name of %d: %s", (int)bad[i], name ? name : "NULL");
    CHECK(msg && *msg, "message of %d is empty or NULL", (int)bad[i]);
    CHECK(msg && fixed && strcmp(msg, fixed) == 0, "message of %d is not the fixed text: %s", (int)bad[i], msg ? msg : "NULL");
    for (int j = 0; j < n && msg; j++)
      CHECK(strcmp(msg, all[j].msg) != 0, "message of %d is that of %s", (int)bad[i], all[j].name);
  }
  return tu_done("status");
}
