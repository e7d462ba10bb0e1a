/* tally info: the version, every backend and device (usable or not, and why), the chosen
 * device's details and its variants. */
#include "cli.h"
#include "commands.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char info_usage[] =
    "usage: tally info [--json] [--device STR]\n"
    "\n"
    "Show tally's version, the backends and devices here (usable or not, and why), and\n"
    "the details and variants of the device that reductions use.\n"
    "\n"
    "options:\n"
    "  --device STR   describe this device (default: $TALLY_DEVICE, else auto)\n"
    "  --json         print one JSON object on one line\n"
    "  -h, --help     show this help\n";

#define MAX_DEVICES 64

static void print_text(const tally_device_info *devs, int ndev, const char *device,
                       const tally_context *ctx, const tally_context_info *ci) {
  printf("tally %s\n\ndevices:\n", tally_version());
  for (int i = 0; i < ndev; i++) {
    if (devs[i].usable) printf("  %-12s usable     %s\n", devs[i].name, devs[i].detail);
    else printf("  %-12s not usable: %s\n", devs[i].name, devs[i].why);
  }
  if (!ctx) return;
  const char *env = getenv("TALLY_DEVICE");
  if (device) printf("\ndevice %s:\n", device);
  else if (env && *env) printf("\ndevice %s (from $TALLY_DEVICE):\n", env);
  else printf("\ndevice auto:\n");
  printf("  backend             %s\n", ci->backend);
  printf("  device              %s\n", ci->device);
  if (strcmp(ci->backend, "cpu") == 0) {
    printf("  isa                 %s\n", ci->isa);
    printf("  threads             %d\n", ci->threads);
    printf("  parallel threshold  %" PRId64 " bytes\n", ci->parallel_threshold_bytes);
  }
  printf("  variants           ");
  for (int i = 0;; i++) {
    const char *v = tally_variant_name(ctx, i);
    if (!v) break;
    printf(" %s", v);
  }
  printf("\n");
}

static void print_json(const tally_device_info *devs, int ndev, const char *device,
                       const tally_context *ctx, const tally_context_info *ci) {
  printf("{\"version\":");
  cli_json_string(stdout, tally_version());
  printf(",\"devices\":[");
  for (int i = 0; i < ndev; i++) {
    printf("%s{\"name\":", i ? "," : "");
    cli_json_string(stdout, devs[i].name);
    printf(",\"backend\":");
    cli_json_string(stdout, devs[i].backend);
    printf(",\"detail\":");
    cli_json_string(stdout, devs[i].detail);
    printf(",\"usable\":%s", devs[i].usable ? "true" : "false");
    if (!devs[i].usable) {
      printf(",\"why\":");
      cli_json_string(stdout, devs[i].why);
    }
    printf("}");
  }
  printf("]");
  if (ctx) {
    printf(",\"context\":{\"device_string\":");
    if (device) cli_json_string(stdout, device);
    else printf("null");
    printf(",\"backend\":");
    cli_json_string(stdout, ci->backend);
    printf(",\"device\":");
    cli_json_string(stdout, ci->device);
    printf(",\"isa\":");
    cli_json_string(stdout, ci->isa);
    printf(",\"threads\":%d,\"parallel_threshold_bytes\":%" PRId64 ",\"variants\":[", ci->threads,
           ci->parallel_threshold_bytes);
    for (int i = 0;; i++) {
      const char *v = tally_variant_name(ctx, i);
      if (!v) break;
      printf("%s", i ? "," : "");
      cli_json_string(stdout, v);
    }
    printf("]}");
  }
  printf("}\n");
}

int tally_cmd_info(int argc, char **argv) {
  static const struct option longopts[] = {
      {"json", no_argument, NULL, 'j'},
      {"device", required_argument, NULL, 'd'},
      {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0},
  };
  int json = 0, c;
  const char *device = NULL;
  opterr = 0;
  optind = 1;
  while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
    switch (c) {
    case 'h': fputs(info_usage, stdout); return 0;
    case 'j': json = 1; break;
    case 'd': device = optarg; break;
    default: return cli_option_error(c, argv, "tally info");
    }
  }
  if (optind < argc) {
    cli_error("%s: unexpected argument (tally info takes only options)", argv[optind]);
    return CLI_EXIT_USAGE;
  }

  tally_device_info devs[MAX_DEVICES];
  int ndev = 0;
  tally_status s = tally_devices(devs, MAX_DEVICES, &ndev);
  if (s) return cli_lib_error(NULL, s);
  if (ndev > MAX_DEVICES) ndev = MAX_DEVICES;

  /* Show what can be shown even when the device does not open; then report the failure. */
  tally_context *ctx = NULL;
  tally_context_info ci;
  memset(&ci, 0, sizeof ci);
  tally_status open_status = tally_open(device, &ctx);
  char open_err[512] = "";
  if (open_status) snprintf(open_err, sizeof open_err, "%s", tally_errmsg(NULL));
  else if ((s = tally_context_describe(ctx, &ci))) {
    int rc = cli_lib_error(ctx, s);
    tally_close(ctx);
    return rc;
  }

  if (json) print_json(devs, ndev, device, ctx, &ci);
  else print_text(devs, ndev, device, ctx, &ci);
  fflush(stdout);
  tally_close(ctx);
  if (open_status) {
    cli_error("%s [%s]", open_err[0] ? open_err : tally_status_str(open_status),
              tally_status_name(open_status));
    return CLI_EXIT_FAIL;
  }
  return 0;
}
