/* Run a command and report its wall time and peak resident memory.
 *
 *   peakrss OUT COMMAND [ARG...]
 *
 * writes "SECONDS MAXRSS_KIB EXIT" to the file OUT. Measuring from a small
 * launcher matters: a child created by a large process (fork or vfork) starts
 * with that process's resident memory on its books, so a peak read from the
 * benchmark's own children would be the benchmark's size, not the command's. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: peakrss OUT COMMAND [ARG...]\n");
        return 2;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = fork();
    if (pid == 0) {
        execvp(argv[2], argv + 2);
        _exit(127);
    }
    int status;
    struct rusage usage;
    wait4(pid, &status, 0, &usage);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    FILE *out = fopen(argv[1], "w");
    if (out == NULL) return 1;
    double seconds = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
    fprintf(out, "%.9f %ld %d\n", seconds, usage.ru_maxrss,
            WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
    fclose(out);
    return 0;
}
