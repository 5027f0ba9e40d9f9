/* The oak command line: `oak COMMAND [options]`. One table row per command;
 * each command lives in its own cmd_*.c file and parses its own options. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

typedef struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    uint64_t options; /* for `oak help COMMAND`: the command's own parser's set */
    const char *summary;
} command;

static const command g_commands[] = {
    {"render", _oak_cmd_render, CLI_RENDER_OPTIONS,
     "draw a world or scene file to a PNG (--window: show it in a window)"},
    {"bench", _oak_cmd_bench, CLI_BENCH_OPTIONS,
     "time frames along the world's camera path (median, p95, p99, max per stage)"},
    {"info", _oak_cmd_info, CLI_INFO_OPTIONS,
     "version, backends compiled in and what each finds here, threads"},
    {"view", _oak_cmd_view, 0,
     "frame and draw a glTF model to a PNG (oak view FILE --check: validate only)"},
    {"bake", _oak_cmd_bake, 0, "write a glTF model as a .oakm cache and time both loads"},
};

#define COMMAND_COUNT (sizeof g_commands / sizeof g_commands[0])

static const command *find_command(const char *name) {
    for (size_t i = 0; i < COMMAND_COUNT; i++)
        if (strcmp(g_commands[i].name, name) == 0) return &g_commands[i];
    return NULL;
}

static void usage(FILE *f) {
    fprintf(f, "usage: oak COMMAND [options]   (oak help COMMAND for its options)\n");
    for (size_t i = 0; i < COMMAND_COUNT; i++)
        fprintf(f, "  %-8s %s\n", g_commands[i].name, g_commands[i].summary);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        usage(stderr);
        return CLI_EXIT_USAGE;
    }
    const char *name = argv[1];
    if (!strcmp(name, "help") || !strcmp(name, "--help") || !strcmp(name, "-h")) {
        const command *c = argc > 2 ? find_command(argv[2]) : NULL;
        if (argc > 2 && !c) {
            fprintf(stderr, "oak help: unknown command '%s' (oak help lists them)\n", argv[2]);
            return CLI_EXIT_USAGE;
        }
        if (!c) {
            usage(stdout);
            return 0;
        }
        printf("oak %s: %s\n", c->name, c->summary);
        _oak_cli_print_options(stdout, c->options);
        return 0;
    }
    if (!strcmp(name, "--version")) {
        printf("oak %d.%d.%d\n", OAK_VERSION_MAJOR, OAK_VERSION_MINOR, OAK_VERSION_PATCH);
        return 0;
    }
    const command *c = find_command(name);
    if (!c) {
        fprintf(stderr, "oak: unknown command '%s' (commands:", name);
        for (size_t i = 0; i < COMMAND_COUNT; i++)
            fprintf(stderr, "%s %s", i ? "," : "", g_commands[i].name);
        fprintf(stderr, ")\n");
        return CLI_EXIT_USAGE;
    }
    return c->run(argc - 1, argv + 1);
}
