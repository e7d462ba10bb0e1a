/* tally_options_init fills the documented defaults over whatever was there. */
#include "check.h"
#include "tally.h"

int main(void) {
  tally_options o;
  memset(&o, 0x5a, sizeof o);
  tally_options_init(&o);
  CHECK(o.accuracy == TALLY_ACCURACY_DEFAULT, "accuracy %d", (int)o.accuracy);
  CHECK(o.nan == TALLY_NAN_PROPAGATE, "nan %d", (int)o.nan);
  CHECK(o.axis == -1, "axis %d", o.axis);
  CHECK(o.ddof == 0, "ddof %d", o.ddof);
  CHECK(o.variant == NULL, "variant not NULL");
  CHECK(o.progress == NULL, "progress not NULL");
  CHECK(o.progress_user == NULL, "progress_user not NULL");
  CHECK(o.host_input == TALLY_HOST_INPUT_AUTO, "host_input %d", (int)o.host_input);
  CHECK(TALLY_ACCURACY_DEFAULT == 0 && TALLY_NAN_PROPAGATE == 0 && TALLY_HOST_INPUT_AUTO == 0,
        "default enumerators are not 0");
  tally_options_init(NULL); /* allowed: must not crash */
  return tu_done("options");
}
