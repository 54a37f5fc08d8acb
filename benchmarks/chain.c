/* The processes `make stress` keeps alive (benchmarks/stress.py).
 *
 *   RUNCTX_CHAIN_MODE=idle  chain ARGV...   sleeps until killed, named after
 *       the basename of ARGV[0] (its comm), its argv as given: a runner-named
 *       process (ARGV "pytest -q", "npm test") at the cost of a few pages;
 *   RUNCTX_CHAIN_MODE=burn  chain ARGV...   spins on a CPU until killed;
 *   RUNCTX_CHAIN_DEPTH=N RUNCTX_CHAIN_TITLE=TITLE chain PROGRAM [ARG...]
 *       a chain: started with any argv[0] (the title's length at most), each
 *       process names itself TITLE (prctl PR_SET_NAME, and its argv area
 *       rewritten, as node's process.title does), forks the next one and
 *       waits for it; the N-th becomes an idle PROGRAM ARG... (the idle mode
 *       above). So /proc shows N processes titled TITLE (say "npm exec"), each
 *       the parent of the next, over one runner-named process.
 *
 * Every process dies with its parent (PR_SET_PDEATHSIG) as well as by its
 * process group, which is how the harness stops them. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static void idle(char **argv) {
    const char *base = strrchr(argv[0], '/');
    prctl(PR_SET_NAME, base != NULL ? base + 1 : argv[0], 0, 0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    for (;;) pause();
}

static void burn(void) {
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    volatile unsigned long spin = 0;
    for (;;) spin++;
}

int main(int argc, char **argv) {
    const char *mode = getenv("RUNCTX_CHAIN_MODE");
    if (mode != NULL && strcmp(mode, "idle") == 0) idle(argv);
    if (mode != NULL && strcmp(mode, "burn") == 0) burn();
    const char *depth_text = getenv("RUNCTX_CHAIN_DEPTH");
    const char *title = getenv("RUNCTX_CHAIN_TITLE");
    if (argc < 2 || depth_text == NULL || title == NULL) {
        fprintf(stderr, "usage: RUNCTX_CHAIN_DEPTH=N RUNCTX_CHAIN_TITLE=T chain PROGRAM [ARG...]\n");
        return 2;
    }
    long depth = strtol(depth_text, NULL, 10);
    /* The argv area: argv[0] up to the end of the last argument. */
    char *area = argv[0];
    size_t size = (size_t)(argv[argc - 1] + strlen(argv[argc - 1]) + 1 - area);
    char **program;
    char *copy[argc];
    for (int i = 1; i < argc; i++) copy[i - 1] = strdup(argv[i]);
    copy[argc - 1] = NULL;
    program = copy;
    for (long level = 0; level < depth; level++) {
        prctl(PR_SET_NAME, title, 0, 0, 0);
        prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
        memset(area, 0, size);
        strncpy(area, title, size - 1);
        pid_t child = fork();
        if (child < 0) {
            perror("fork");
            pause();
        }
        if (child > 0) {
            int status;
            while (waitpid(child, &status, 0) < 0) {
            }
            return 0;
        }
    }
    setenv("RUNCTX_CHAIN_MODE", "idle", 1);
    execv("/proc/self/exe", program);
    perror("execv");
    return 127;
}
