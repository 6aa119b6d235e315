/* The stdio efficiency table (standard I/O efficiency): copy standard input to standard output one way.
 * method 0: getc/putc, 1: fgetc/fputc, 2: fgets/fputs (MAXLINE 4096, as the book),
 * 3: read/write with a buffer of `bufsize` bytes. Returns 0, or 2 on an I/O error. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define MAXLINE 4096

int blitty_probe_stdio(int method, long bufsize) {
    switch (method) {
    case 0: {
        int c;
        while ((c = getc(stdin)) != EOF)
            if (putc(c, stdout) == EOF)
                return 2;
        break;
    }
    case 1: {
        int c;
        while ((c = fgetc(stdin)) != EOF)
            if (fputc(c, stdout) == EOF)
                return 2;
        break;
    }
    case 2: {
        char buf[MAXLINE];
        while (fgets(buf, MAXLINE, stdin) != NULL)
            if (fputs(buf, stdout) == EOF)
                return 2;
        break;
    }
    case 3: {
        char *buf = malloc(bufsize > 0 ? (size_t)bufsize : 1);
        ssize_t n;
        if (buf == NULL)
            return 2;
        while ((n = read(STDIN_FILENO, buf, (size_t)bufsize)) > 0)
            if (write(STDOUT_FILENO, buf, (size_t)n) != n) {
                free(buf);
                return 2;
            }
        free(buf);
        if (n < 0)
            return 2;
        return 0;
    }
    default:
        return 2;
    }
    if (ferror(stdin) || fflush(stdout) == EOF)
        return 2;
    return 0;
}
