/* A stand-in for an arm's tool in the benchmarks: `--version` prints one
 * line; anything else prints a JSON list of 50 issues, so pipelines into
 * jq, head and grep have work to do. It reads no files and opens nothing. */
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "--version") == 0) {
        puts("tea version 0.9.2-stub");
        return 0;
    }
    fputs("[", stdout);
    for (int i = 1; i <= 50; i++) {
        printf("%s{\"number\":%d,\"title\":\"Issue number %d\",\"state\":\"%s\"}",
               i > 1 ? "," : "", i, i, i % 3 ? "open" : "closed");
    }
    puts("]");
    return 0;
}
