/* The modem-program post (the 1988 Pcomm screen-write test): write `text` to the terminal on standard
 * output one way, cooked or raw (no OPOST, no ICANON, no ECHO), and measure:
 *   results[0] seconds until the last write returns,
 *   results[1] seconds until the terminal answers a DSR sent after the text (it has then
 *              processed everything before it), or -1 when no answer comes within 20 s,
 *   results[2] user and results[3] system CPU seconds of the writing.
 * method: 0 setbuf(NULL)+fputc, 1 setbuf(NULL)+putc, 2 setbuf(NULL)+putchar, 3 fputc+fflush,
 *         4 putc+fflush, 5 putchar+fflush, 6 write of 1 byte, 7 fwrite of the whole text
 *         (the control), 8 write of 96 bytes at a time (the X server charstones's stringstones).
 * Returns 0, or 2 on an error. */
#include <poll.h>
#include <stdio.h>
#include <sys/resource.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double secs(struct timeval t) { return (double)t.tv_sec + (double)t.tv_usec / 1e6; }

int blitty_probe_writes(int method, int raw, const char *text, long len, double *results) {
    struct termios saved, t;
    long i;
    if (tcgetattr(STDOUT_FILENO, &saved) != 0)
        return 2;
    t = saved;
    if (raw) {
        t.c_oflag &= ~(tcflag_t)OPOST;
        t.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
    }
    tcsetattr(STDOUT_FILENO, TCSANOW, &t);
    if (method <= 2)
        setbuf(stdout, NULL);
    struct rusage r0, r1;
    getrusage(RUSAGE_SELF, &r0);
    double t0 = now();
    switch (method) {
    case 0: for (i = 0; i < len; i++) fputc(text[i], stdout); break;
    case 1: for (i = 0; i < len; i++) putc(text[i], stdout); break;
    case 2: for (i = 0; i < len; i++) putchar(text[i]); break;
    case 3: for (i = 0; i < len; i++) { fputc(text[i], stdout); fflush(stdout); } break;
    case 4: for (i = 0; i < len; i++) { putc(text[i], stdout); fflush(stdout); } break;
    case 5: for (i = 0; i < len; i++) { putchar(text[i]); fflush(stdout); } break;
    case 6: for (i = 0; i < len; i++) if (write(STDOUT_FILENO, &text[i], 1) != 1) return 2; break;
    case 7: fwrite(text, 1, (size_t)len, stdout); fflush(stdout); break;
    case 8:
        for (i = 0; i < len; i += 96) {
            size_t n = (size_t)(len - i < 96 ? len - i : 96);
            if (write(STDOUT_FILENO, text + i, n) != (ssize_t)n)
                return 2;
        }
        break;
    default: return 2;
    }
    double t1 = now();
    getrusage(RUSAGE_SELF, &r1);
    /* The answer to a DSR comes after the terminal has processed everything before it. */
    struct termios q = t;
    q.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
    q.c_cc[VMIN] = 1;
    q.c_cc[VTIME] = 0;
    tcsetattr(STDIN_FILENO, TCSANOW, &q);
    double done = -1;
    if (write(STDOUT_FILENO, "\033[6n", 4) == 4) {
        char c = 0;
        struct pollfd p = {STDIN_FILENO, POLLIN, 0};
        double limit = now() + 20;
        while (c != 'R' && now() < limit) {
            if (poll(&p, 1, 1000) > 0 && read(STDIN_FILENO, &c, 1) != 1)
                break;
        }
        if (c == 'R')
            done = now() - t0;
    }
    tcsetattr(STDOUT_FILENO, TCSANOW, &saved);
    results[0] = t1 - t0;
    results[1] = done;
    results[2] = secs(r1.ru_utime) - secs(r0.ru_utime);
    results[3] = secs(r1.ru_stime) - secs(r0.ru_stime);
    return 0;
}
