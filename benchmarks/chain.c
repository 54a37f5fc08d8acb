/* The processes `make stress` keeps alive (benchmarks/stress.py).
 *
 *   RUNCTX_CHAIN_MODE=idle  chain ARGV...   sleeps until killed, named after
 *       the basename of ARGV[0] (its comm), its argv as given: a runner-named
 *       process (ARGV "pytest -q", "npm test") at the cost of a few pages;
 *   RUNCTX_CHAIN_MODE=burn  chain ARGV...   spins on a CPU until killed;
 *   RUNCTX_CHAIN_DEPTH=N RUNCTX_CHAIN_TITLE=TITLE chain PROGRAM [ARG...]
 *       a chain: started with any argv[0] (the title's length at most), each
 *       process names itself TITLE (prctl PR_SET_NAME, and its argv area
 *       rewritten, as node's process.title does), forks the next one, which
 *       execs this program again one level less deep, and waits for it; the
 *       last becomes an idle PROGRAM ARG... (the idle mode above). So /proc shows N processes titled TITLE (say "npm exec"), each
 *       the parent of the next, over one runner-named process. With
 *       RUNCTX_CHAIN_READY=PATH the last one creates PATH before it idles;
 *   RUNCTX_CHAIN_MODE=storm chain COUNT BURNERS UID TITLE READY DIR...
 *       forks COUNT idle processes titled TITLE (in DIR... in turn), then
 *       BURNERS burners, each as UID (and its group), creates READY and reaps
 *       for ever: a storm of another user started in well under a second,
 *       where a fork from an interpreter would take minutes on a saturated box.
 *
 * Every process dies with its parent (PR_SET_PDEATHSIG) as well as by its
 * process group, which is how the harness stops them; but for the first one
 * when RUNCTX_CHAIN_ORPHAN is set: its parent exits on purpose (a double
 * fork), and must not take it along. */
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static int orphan;

static void tie_to_parent(void) {
    if (!orphan) prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
}

static void touch(const char *path) {
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) close(fd);
}

static void idle(char **argv) {
    const char *base = strrchr(argv[0], '/');
    prctl(PR_SET_NAME, base != NULL ? base + 1 : argv[0], 0, 0, 0);
    tie_to_parent();
    for (;;) pause();
}

static void burn(void) {
    tie_to_parent();
    volatile unsigned long spin = 0;
    for (;;) spin++;
}

static void start_as(uid_t uid, const char *dir, char *mode, char *title) {
    if (fork() != 0) return;
    if (chdir(dir) != 0 || setgroups(0, NULL) != 0 || setgid(uid) != 0 || setuid(uid) != 0) {
        perror("storm: chdir or drop to uid");
        _exit(126);
    }
    char *argv[] = {title, NULL};
    char env_mode[32];
    snprintf(env_mode, sizeof env_mode, "RUNCTX_CHAIN_MODE=%s", mode);
    char *envp[] = {env_mode, NULL};
    execve("/proc/self/exe", argv, envp);
    _exit(127);
}

static int storm(int argc, char **argv) {
    if (argc < 7) {
        fprintf(stderr, "usage: RUNCTX_CHAIN_MODE=storm chain COUNT BURNERS UID TITLE READY DIR...\n");
        return 2;
    }
    long count = strtol(argv[1], NULL, 10), burners = strtol(argv[2], NULL, 10);
    uid_t uid = (uid_t)strtol(argv[3], NULL, 10);
    char **dirs = argv + 6;
    int ndirs = argc - 6;
    tie_to_parent();
    for (long i = 0; i < count; i++) start_as(uid, dirs[i % ndirs], "idle", argv[4]);
    for (long i = 0; i < burners; i++) start_as(uid, dirs[0], "burn", "burn");
    touch(argv[5]);
    for (;;) {
        if (wait(NULL) < 0) pause();
    }
}

int main(int argc, char **argv) {
    orphan = getenv("RUNCTX_CHAIN_ORPHAN") != NULL;
    unsetenv("RUNCTX_CHAIN_ORPHAN");
    const char *mode = getenv("RUNCTX_CHAIN_MODE");
    if (mode != NULL && strcmp(mode, "idle") == 0) idle(argv);
    if (mode != NULL && strcmp(mode, "burn") == 0) burn();
    if (mode != NULL && strcmp(mode, "storm") == 0) return storm(argc, argv);
    const char *depth_text = getenv("RUNCTX_CHAIN_DEPTH");
    const char *title = getenv("RUNCTX_CHAIN_TITLE");
    if (argc < 2 || depth_text == NULL || title == NULL) {
        fprintf(stderr, "usage: RUNCTX_CHAIN_DEPTH=N RUNCTX_CHAIN_TITLE=T chain PROGRAM [ARG...]\n");
        return 2;
    }
    long depth = strtol(depth_text, NULL, 10);
    if (depth > 0) {
        /* This level: titled, the parent of the next one, which is this program
         * again, one level less deep. The next level is exec'd, not only forked:
         * a fork of a fork of a fork... shares its ancestors' anonymous memory
         * maps (the kernel links each new map to all of them), so every fork
         * costs as much as the chain is deep and a chain of thousands takes
         * minutes; an exec starts each level with maps of its own. */
        char *area = argv[0]; /* argv[0] up to the end of the last argument */
        size_t size = (size_t)(argv[argc - 1] + strlen(argv[argc - 1]) + 1 - area);
        char *copy[argc + 1];
        for (int i = 0; i < argc; i++) copy[i] = strdup(argv[i]);
        copy[argc] = NULL;
        char next[32];
        snprintf(next, sizeof next, "%ld", depth - 1);
        setenv("RUNCTX_CHAIN_DEPTH", next, 1);
        prctl(PR_SET_NAME, title, 0, 0, 0);
        tie_to_parent();
        memset(area, 0, size);
        strncpy(area, title, size - 1);
        pid_t child = fork();
        if (child < 0) {
            perror("fork");
            pause();
        }
        if (child == 0) {
            orphan = 0; /* the next level's parent is this one */
            execv("/proc/self/exe", copy);
            perror("execv");
            _exit(127);
        }
        int status;
        while (waitpid(child, &status, 0) < 0) {
        }
        return 0;
    }
    char **program = argv + 1;
    orphan = 0;
    const char *ready = getenv("RUNCTX_CHAIN_READY");
    if (ready != NULL) touch(ready);
    unsetenv("RUNCTX_CHAIN_READY");
    setenv("RUNCTX_CHAIN_MODE", "idle", 1);
    execv("/proc/self/exe", program);
    perror("execv");
    return 127;
}
