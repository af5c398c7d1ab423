/* The helper programs the Oils spec cases call (spec/bin/argv.py,
 * printenv.py, stdout_stderr.py, read_from_fd.py), as one native program
 * chosen by the name it is run as: the cases compare shells, and an arm
 * runs no Python. Both shells run these same helpers, so only their being
 * the same function of their arguments matters, not Python's exact repr. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void repr(const char *s) {
    putchar('\'');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '\'' || *p == '\\') printf("\\%c", *p);
        else if (*p == '\n') fputs("\\n", stdout);
        else if (*p == '\t') fputs("\\t", stdout);
        else if (*p == '\r') fputs("\\r", stdout);
        else if (*p < 0x20 || *p == 0x7f) printf("\\x%02x", *p);
        else putchar(*p);
    }
    putchar('\'');
}

int main(int argc, char **argv) {
    const char *name = strrchr(argv[0], '/');
    name = name ? name + 1 : argv[0];
    if (strcmp(name, "argv.py") == 0) {
        putchar('[');
        for (int i = 1; i < argc; i++) {
            if (i > 1) fputs(", ", stdout);
            repr(argv[i]);
        }
        puts("]");
        return 0;
    }
    if (strcmp(name, "printenv.py") == 0) {
        for (int i = 1; i < argc; i++) {
            const char *v = getenv(argv[i]);
            puts(v ? v : "None");
        }
        return 0;
    }
    if (strcmp(name, "stdout_stderr.py") == 0) {
        puts(argc > 1 ? argv[1] : "STDOUT");
        fflush(stdout);
        fprintf(stderr, "%s\n", argc > 2 ? argv[2] : "STDERR");
        return argc > 3 ? atoi(argv[3]) : 0;
    }
    if (strcmp(name, "read_from_fd.py") == 0) {
        for (int i = 1; i < argc; i++) {
            int fd = atoi(argv[i]);
            char buf[1024];
            ssize_t n = read(fd, buf, sizeof buf);
            if (n < 0) {
                fprintf(stderr, "FATAL: Error reading from fd %d\n", fd);
                return 1;
            }
            printf("%d: ", fd);
            fflush(stdout);
            if (write(1, buf, (size_t)n) < 0) return 1;
        }
        return 0;
    }
    fprintf(stderr, "oils_helpers: unknown name %s\n", name);
    return 2;
}
