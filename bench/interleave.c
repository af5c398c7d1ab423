/* Time commands run alternately, one run of each in turn, N rounds:
 * the way to tell two builds apart by tens of microseconds on a machine
 * whose speed drifts over minutes (hyperfine runs each command's runs in
 * one block, so a drift between blocks reads as a difference).
 *
 * Usage: interleave N CMD ARG... [-- CMD ARG...]...
 * Each command runs with its output on /dev/null and the caller's
 * environment; prints, per command, the median, 10th and 25th percentile
 * of its wall time in milliseconds. Exits 1 when a command fails (status
 * other than 0), so a broken build is not timed.
 *
 * Build: cc -O2 -o interleave bench/interleave.c
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_COMMANDS 16

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    if (argc < 3 || atoi(argv[1]) < 1) {
        fprintf(stderr, "usage: interleave N CMD ARG... [-- CMD ARG...]...\n");
        return 2;
    }
    int rounds = atoi(argv[1]);
    char **commands[MAX_COMMANDS];
    int count = 0;
    commands[count++] = &argv[2];
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--") != 0)
            continue;
        argv[i] = NULL; /* ends the command before it */
        if (i + 1 >= argc || count == MAX_COMMANDS) {
            fprintf(stderr, "interleave: an empty command or more than %d\n", MAX_COMMANDS);
            return 2;
        }
        commands[count++] = &argv[i + 1];
    }
    double *times = calloc((size_t)rounds * count, sizeof(double));
    int devnull = open("/dev/null", O_WRONLY);
    if (times == NULL || devnull < 0) {
        perror("interleave");
        return 2;
    }
    for (int r = 0; r < rounds; r++) {
        for (int c = 0; c < count; c++) {
            double start = now_ms();
            pid_t pid = fork();
            if (pid == 0) {
                dup2(devnull, 1);
                execv(commands[c][0], commands[c]);
                _exit(127);
            }
            int status = 0;
            if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
                WEXITSTATUS(status) != 0) {
                fprintf(stderr, "interleave: %s failed (%s %d)\n", commands[c][0],
                        WIFSIGNALED(status) ? "signal" : "status",
                        WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
                return 1;
            }
            times[c * rounds + r] = now_ms() - start;
        }
    }
    for (int c = 0; c < count; c++) {
        double *t = times + c * rounds;
        qsort(t, rounds, sizeof(double), by_value);
        printf("median %.3f  p10 %.3f  p25 %.3f ms ", t[rounds / 2], t[rounds / 10], t[rounds / 4]);
        for (char **a = commands[c]; *a; a++)
            printf(" %s", *a);
        printf("\n");
    }
    return 0;
}
