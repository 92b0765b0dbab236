/*
 * The bench's SSE clients, read natively. The fan-out measurement opens 1,000 streams from one core
 * beside svc's; read by Node there, each read costs ~20 µs of JavaScript, libuv and stream machinery,
 * the driver sat at 75-90% of its core, and its own queueing (loop lag p99 30-47 ms) was counted as
 * svc's latency. Here a read is a system call and a scan: the clients cost a few percent of the core,
 * as clients on other machines would. Built by bench/sse-reader-build.ts with the machine's C compiler.
 *
 * Usage: sse-reader <IPv4 address> <port> <clients>, with the stream's HTTP request in SSE_REQUEST (each
 * client puts its number, 0 to clients-1, for the request's first "@CLIENT@": a filter per client).
 * Prints "connected <n>" once every client has read the stream's preamble (or "error <why>" and
 * exits 1). Then reads every stream, timing each bench post's event by CLOCK_MONOTONIC (the clock of
 * Node's process.hrtime) as it is read, and answers commands on stdin, one per line:
 *   count        -> "count <warm-up events> <timed events> <streams closed> <CPU ms>"
 *   dump <path>  -> writes the timed events to <path> as float64 pairs (post seq, ms), then "dumped <n>"
 * It exits at the end of stdin.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* Bytes kept per stream: an unfinished message waits here for its end. svc flushes ~1.5 KB per client. */
#define STREAM_BUFFER (64 * 1024)
#define CONNECT_GROUP 50
#define CONNECT_TIMEOUT_MS 30000

static const char TITLE[] = "\"title\":\"sse-";

struct stream {
  int fd;
  int open;
  int head; /* still before ": connected" */
  size_t length;
  char *buffer;
};

static struct stream *streams;
static int clients;
static long connected, closed_streams, warm_events, timed_count, timed_capacity;
static double *timed; /* pairs: seq, ms */

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void fail(const char *why, const char *detail) {
  printf("error %s%s%s\n", why, detail ? ": " : "", detail ? detail : "");
  fflush(stdout);
  exit(1);
}

static void record(long seq, double at) {
  if (timed_count == timed_capacity) {
    timed_capacity = timed_capacity ? timed_capacity * 2 : 1 << 20;
    timed = realloc(timed, (size_t)timed_capacity * 2 * sizeof(double));
    if (!timed) fail("out of memory", NULL);
  }
  timed[timed_count * 2] = (double)seq;
  timed[timed_count * 2 + 1] = at;
  timed_count++;
}

/* Every post mark in whole messages: `"title":"sse-<seq>"` (timed) or `"title":"sse-warm-<seq>"`. */
static void scan(const char *text, size_t length, double at) {
  const char *end = text + length;
  for (const char *p = memmem(text, length, TITLE, sizeof TITLE - 1); p; p = memmem(p, (size_t)(end - p), TITLE, sizeof TITLE - 1)) {
    p += sizeof TITLE - 1;
    if (p < end && *p == 'w') {
      if ((size_t)(end - p) >= 5 && memcmp(p, "warm-", 5) == 0) warm_events++;
      continue;
    }
    long seq = 0;
    const char *first = p;
    while (p < end && *p >= '0' && *p <= '9') seq = seq * 10 + (*p++ - '0');
    if (p > first && p < end && *p == '"') record(seq, at);
  }
}

static void close_stream(int epoll, struct stream *s) {
  if (!s->open) return;
  epoll_ctl(epoll, EPOLL_CTL_DEL, s->fd, NULL);
  close(s->fd);
  s->open = 0;
  closed_streams++;
}

static void read_stream(int epoll, struct stream *s) {
  ssize_t n = read(s->fd, s->buffer + s->length, STREAM_BUFFER - s->length);
  double at = now_ms();
  if (n <= 0) {
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
    if (s->head) fail("a stream closed before its preamble", NULL);
    close_stream(epoll, s);
    return;
  }
  s->length += (size_t)n;
  if (s->head) {
    if (s->length >= 12 && memcmp(s->buffer, "HTTP/1.1 2", 10) != 0) {
      s->buffer[s->length < 200 ? s->length : 200] = '\0';
      fail("the stream answered", s->buffer);
    }
    char *mark = memmem(s->buffer, s->length, ": connected\n\n", 13);
    if (!mark) return;
    s->head = 0;
    connected++;
  }
  /* Only whole messages are scanned; the rest waits for the next read. */
  size_t end = 0;
  for (size_t i = s->length; i >= 2; i--) {
    if (s->buffer[i - 1] == '\n' && s->buffer[i - 2] == '\n') {
      end = i;
      break;
    }
  }
  if (end == 0) {
    if (s->length == STREAM_BUFFER) fail("a message longer than the stream buffer", NULL);
    return;
  }
  scan(s->buffer, end, at);
  memmove(s->buffer, s->buffer + end, s->length - end);
  s->length -= end;
}

static double cpu_ms(void) {
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_utime.tv_sec * 1e3 + usage.ru_utime.tv_usec / 1e3 + usage.ru_stime.tv_sec * 1e3 + usage.ru_stime.tv_usec / 1e3;
}

static void dump(const char *path) {
  FILE *file = fopen(path, "wb");
  if (!file || fwrite(timed, 2 * sizeof(double), (size_t)timed_count, file) != (size_t)timed_count || fclose(file) != 0) fail("cannot write", path);
  printf("dumped %ld\n", timed_count);
  fflush(stdout);
}

/* Commands arrive whole and rarely; a partial line waits for the rest. Returns 0 at the end of stdin. */
static int read_commands(void) {
  static char line[4096];
  static size_t length;
  ssize_t n = read(0, line + length, sizeof line - 1 - length);
  if (n <= 0) return n < 0 && errno == EINTR;
  length += (size_t)n;
  char *newline;
  while ((newline = memchr(line, '\n', length))) {
    *newline = '\0';
    if (strcmp(line, "count") == 0) {
      printf("count %ld %ld %ld %.1f\n", warm_events, timed_count, closed_streams, cpu_ms());
      fflush(stdout);
    } else if (strncmp(line, "dump ", 5) == 0) {
      dump(line + 5);
    }
    size_t used = (size_t)(newline - line) + 1;
    memmove(line, line + used, length - used);
    length -= used;
  }
  return 1;
}

/* The template's first CLIENT_NUMBER replaced by the client's number (a filter per client), into `out`. */
#define CLIENT_NUMBER "@CLIENT@"
static const char *client_request(const char *template, int index, char *out, size_t size) {
  const char *at = strstr(template, CLIENT_NUMBER);
  if (!at) return template;
  int written = snprintf(out, size, "%.*s%d%s", (int)(at - template), template, index, at + strlen(CLIENT_NUMBER));
  if (written < 0 || (size_t)written >= size) fail("request too long", NULL);
  return out;
}

static void open_stream(int epoll, struct stream *s, const struct sockaddr_in *address, const char *template, int index) {
  s->fd = socket(AF_INET, SOCK_STREAM, 0);
  if (s->fd < 0) fail("socket", strerror(errno));
  if (connect(s->fd, (const struct sockaddr *)address, sizeof *address) != 0) fail("connect", strerror(errno));
  char buffer[8192];
  const char *request = client_request(template, index, buffer, sizeof buffer);
  size_t length = strlen(request);
  if (write(s->fd, request, length) != (ssize_t)length) fail("write", strerror(errno));
  fcntl(s->fd, F_SETFL, fcntl(s->fd, F_GETFL) | O_NONBLOCK);
  s->buffer = malloc(STREAM_BUFFER);
  if (!s->buffer) fail("out of memory", NULL);
  s->open = s->head = 1;
  struct epoll_event event = {.events = EPOLLIN, .data.ptr = s};
  if (epoll_ctl(epoll, EPOLL_CTL_ADD, s->fd, &event) != 0) fail("epoll_ctl", strerror(errno));
}

int main(int argc, char **argv) {
  if (argc != 4) fail("usage: sse-reader <IPv4 address> <port> <clients> (request in SSE_REQUEST)", NULL);
  const char *request = getenv("SSE_REQUEST");
  if (!request) fail("SSE_REQUEST is not set", NULL);
  struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((unsigned short)atoi(argv[2]))};
  if (inet_pton(AF_INET, argv[1], &address.sin_addr) != 1) fail("not an IPv4 address", argv[1]);
  clients = atoi(argv[3]);
  streams = calloc((size_t)(clients > 0 ? clients : 1), sizeof *streams);
  int epoll = epoll_create1(0);
  if (!streams || epoll < 0) fail("setup", strerror(errno));
  struct epoll_event events[256];

  /* In groups, as the Node driver does: each group's preambles before the next group connects. */
  double deadline = now_ms() + CONNECT_TIMEOUT_MS;
  for (int i = 0; i < clients; i += CONNECT_GROUP) {
    int group_end = i + CONNECT_GROUP < clients ? i + CONNECT_GROUP : clients;
    for (int j = i; j < group_end; j++) open_stream(epoll, &streams[j], &address, request, j);
    while (connected < group_end) {
      if (now_ms() > deadline) fail("timed out waiting for the streams' preambles", NULL);
      int ready = epoll_wait(epoll, events, 256, 100);
      for (int k = 0; k < ready; k++) read_stream(epoll, events[k].data.ptr);
    }
  }
  printf("connected %ld\n", connected);
  fflush(stdout);

  struct epoll_event input = {.events = EPOLLIN, .data.ptr = NULL};
  if (epoll_ctl(epoll, EPOLL_CTL_ADD, 0, &input) != 0) fail("epoll_ctl stdin", strerror(errno));
  for (;;) {
    int ready = epoll_wait(epoll, events, 256, -1);
    if (ready < 0 && errno != EINTR) fail("epoll_wait", strerror(errno));
    for (int k = 0; k < ready; k++) {
      if (events[k].data.ptr == NULL) {
        if (!read_commands()) return 0;
      } else {
        read_stream(epoll, events[k].data.ptr);
      }
    }
  }
}
