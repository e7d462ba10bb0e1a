/* The CLI's subcommands: one file each (cmd_*.c). Each returns the process exit code. */
#ifndef TALLY_CLI_COMMANDS_H
#define TALLY_CLI_COMMANDS_H

int tally_cmd_info(int argc, char **argv);
int tally_cmd_reduce(int argc, char **argv);
int tally_cmd_bench(int argc, char **argv);
int tally_cmd_scan(int argc, char **argv);
int tally_cmd_hist(int argc, char **argv);

#endif
