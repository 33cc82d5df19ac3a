// SPDX-License-Identifier: GPL-2.0
/*
 * benchtool: the small measuring tools the benchmark needs inside the VM,
 * where busybox has no nanosecond clock and Debian main has no netperf.
 *
 *   benchtool now                      CLOCK_MONOTONIC in ns
 *   benchtool time CMD [ARG...]        run CMD (output discarded), print
 *                                      "NS RC": its run time and exit status
 *   benchtool rr-server PORT           TCP request/response echo server,
 *                                      one connection at a time, forever
 *   benchtool progstat NAME...         bpf_stats of the BPF programs called
 *                                      NAME: "RUN_TIME_NS RUN_CNT" for each
 *                                      NAME, summed over programs of that
 *                                      name (bpftool would load its pid
 *                                      iterator program every time)
 *   benchtool seqcheck PORT IDLE_MS    receive pktgen's UDP packets on PORT
 *                                      until none came for IDLE_MS; prints
 *                                      "RECEIVED REORDERED": how many came,
 *                                      and how many carried a sequence number
 *                                      not above the one before
 *   benchtool rr-client ADDR PORT MS [SIZE]
 *                                      SIZE-byte (default 1) requests, each
 *                                      answered in full before the next, for
 *                                      MS ms; prints "TRANS NS": transactions
 *                                      and the time they took
 *   benchtool spin [MS]                spin at SCHED_IDLE, counting loop
 *                                      iterations, for MS ms or until
 *                                      SIGTERM; prints "ITERATIONS NS". The
 *                                      guest runs it only when nothing else
 *                                      is runnable, so a run's idle time is
 *                                      its iterations times the ns an
 *                                      iteration takes alone (spin MS)
 *   benchtool cgspin MS                cgsend's idle counter alone for MS
 *                                      ms: "ITERATIONS NS"
 *   benchtool cgsend DST DEV CGDIR N ACTIVE SNDBUF WARM_MS WIN_MS SPIN_NS CMD...
 *                                      UDP to DST port 9 from ACTIVE
 *                                      sockets, socket j made in cgroup
 *                                      CGDIR/(j * N / ACTIVE), each as fast
 *                                      as its SNDBUF lets it; after WARM_MS
 *                                      runs "CMD... 0", from its exit for
 *                                      WIN_MS counts DEV's tx_packets and
 *                                      the busy time (the window less the
 *                                      idle time an idle-priority thread
 *                                      counts, SPIN_NS an iteration), then
 *                                      runs "CMD... 1"; prints "PACKETS
 *                                      BUSY_NS WINDOW_NS SENT"
 *
 * Under qemu's -icount shift=0 the guest clock counts instructions, so
 * these times are instruction counts and repeat across boots.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/bpf.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define RR_MAX 65536

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int die(const char *what)
{
	fprintf(stderr, "benchtool: %s: %s\n", what, strerror(errno));
	return 1;
}

static int cmd_time(char **argv)
{
	uint64_t t0 = now_ns(), t1;
	int st, fd;
	pid_t pid = fork();

	if (pid < 0)
		return die("fork");
	if (pid == 0) {
		fd = open("/dev/null", O_RDWR);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execvp(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0)
		return die("waitpid");
	t1 = now_ns();
	printf("%llu %d\n", (unsigned long long)(t1 - t0),
	       WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
	return 0;
}

static int full_io(int fd, char *buf, size_t len, int wr)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n =
			wr ? write(fd, buf + done, len - done) : read(fd, buf + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		done += n;
	}
	return 0;
}

static void nodelay(int fd)
{
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

static int cmd_rr_server(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	static char buf[RR_MAX];
	int one = 1, ls = socket(AF_INET, SOCK_STREAM, 0);

	if (ls < 0)
		return die("socket");
	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(ls, (struct sockaddr *)&a, sizeof(a)) || listen(ls, 16))
		return die("bind/listen");
	for (;;) {
		int c = accept(ls, NULL, NULL);
		ssize_t n;

		if (c < 0) {
			if (errno == EINTR)
				continue;
			return die("accept");
		}
		nodelay(c);
		/* Echo whatever arrives; the client sends one request at a time. */
		while ((n = read(c, buf, sizeof(buf))) > 0)
			if (full_io(c, buf, n, 1))
				break;
		close(c);
	}
}

static int cmd_rr_client(const char *addr, int port, long ms, size_t size)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	static char buf[RR_MAX];
	uint64_t t0, t1, end, trans = 0;
	int fd;

	if (size < 1 || size > RR_MAX || ms < 1) {
		fprintf(stderr, "benchtool: bad rr-client size or time\n");
		return 2;
	}
	if (inet_pton(AF_INET, addr, &a.sin_addr) != 1) {
		fprintf(stderr, "benchtool: bad address %s\n", addr);
		return 2;
	}
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)))
		return die("connect");
	nodelay(fd);
	memset(buf, 'r', size);
	t0 = now_ns();
	end = t0 + (uint64_t)ms * 1000000ULL;
	do {
		if (full_io(fd, buf, size, 1) || full_io(fd, buf, size, 0))
			return die("transaction");
		trans++;
		t1 = now_ns();
	} while (t1 < end);
	close(fd);
	printf("%llu %llu\n", (unsigned long long)trans, (unsigned long long)(t1 - t0));
	return 0;
}

/* pktgen's payload header (net/core/pktgen.c) */
struct pktgen_hdr {
	uint32_t magic;
	uint32_t seq;
	uint32_t tv_sec;
	uint32_t tv_usec;
};
#define PKTGEN_MAGIC 0xbe9be955

static int cmd_seqcheck(int port, int idle_ms)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	unsigned long long received = 0, reordered = 0;
	int fd = socket(AF_INET, SOCK_DGRAM, 0), big = 16 << 20;
	uint32_t last = 0;

	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)))
		return die("bind");
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	/* Ready: the caller waits for this line before it sends. */
	printf("ready\n");
	fflush(stdout);
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		struct pktgen_hdr h;
		ssize_t n;

		if (poll(&p, 1, idle_ms) <= 0)
			break;
		n = recv(fd, &h, sizeof(h), 0);
		if (n < (ssize_t)sizeof(h) || ntohl(h.magic) != PKTGEN_MAGIC)
			continue;
		if (received && ntohl(h.seq) <= last)
			reordered++;
		last = ntohl(h.seq);
		received++;
	}
	printf("%llu %llu\n", received, reordered);
	return 0;
}

static int sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

static int cmd_progstat(int n, char **names)
{
	unsigned long long t[n], c[n];
	__u32 id = 0;
	int i;

	memset(t, 0, sizeof(t));
	memset(c, 0, sizeof(c));
	for (;;) {
		struct bpf_prog_info info;
		union bpf_attr a;
		int fd;

		memset(&a, 0, sizeof(a));
		a.start_id = id;
		if (sys_bpf(BPF_PROG_GET_NEXT_ID, &a))
			break;
		id = a.next_id;
		memset(&a, 0, sizeof(a));
		a.prog_id = id;
		fd = sys_bpf(BPF_PROG_GET_FD_BY_ID, &a);
		if (fd < 0)
			continue;
		memset(&info, 0, sizeof(info));
		memset(&a, 0, sizeof(a));
		a.info.bpf_fd = fd;
		a.info.info_len = sizeof(info);
		a.info.info = (__u64)(unsigned long)&info;
		if (!sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &a))
			for (i = 0; i < n; i++)
				if (!strncmp(info.name, names[i], sizeof(info.name))) {
					t[i] += info.run_time_ns;
					c[i] += info.run_cnt;
				}
		close(fd);
	}
	if (errno != ENOENT)
		return die("BPF_PROG_GET_NEXT_ID");
	for (i = 0; i < n; i++)
		printf("%s%llu %llu", i ? " " : "", t[i], c[i]);
	printf("\n");
	return 0;
}

static volatile sig_atomic_t spin_stop;
static void on_spin_signal(int sig)
{
	(void)sig;
	spin_stop = 1;
}

/* The same loop timed (MS > 0, alone: the calibration) and untimed (under a
 * workload, until SIGTERM), so that an iteration costs the same in both:
 * the kernel's idle loop has no counter a process can read to the ns
 * (/proc/stat and /proc/uptime count idle time in 10 ms units). */
static int cmd_spin(long ms)
{
	struct sched_param sp = { 0 };
	struct sigaction sa = { .sa_handler = on_spin_signal };
	uint64_t n = 0, t0, deadline = 0;

	if (sched_setscheduler(0, SCHED_IDLE, &sp))
		return die("SCHED_IDLE");
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	t0 = now_ns();
	if (ms > 0)
		deadline = t0 + (uint64_t)ms * 1000000;
	while (!spin_stop) {
		n++;
		if (!(n & 0xffff) && deadline && now_ns() >= deadline)
			break;
	}
	printf("%llu %llu\n", (unsigned long long)n, (unsigned long long)(now_ns() - t0));
	return 0;
}

/* cgsend's idle counter: the same loop alone (cgspin, the calibration) and
 * at SCHED_IDLE beside the sender, where it runs only while nothing else
 * can; the sender reads spin_n at its window's ends. */
static volatile uint64_t spin_n;
static volatile int spin_quit;

/* noipa: the thread's call, with no deadline, must not get a copy of its
 * own without the deadline test, or its iterations would be cheaper than
 * the calibration's. */
static __attribute__((noipa)) void spin_loop(uint64_t deadline)
{
	while (!spin_quit) {
		uint64_t n = ++spin_n;

		if (!(n & 0xffff) && deadline && now_ns() >= deadline)
			break;
	}
}

static void *spin_thread(void *arg)
{
	struct sched_param sp = { 0 };

	(void)arg;
	if (sched_setscheduler(0, SCHED_IDLE, &sp)) {
		die("SCHED_IDLE");
		exit(1);
	}
	spin_loop(0);
	return NULL;
}

static int cmd_cgspin(long ms)
{
	uint64_t t0 = now_ns();

	spin_loop(t0 + (uint64_t)ms * 1000000);
	printf("%llu %llu\n", (unsigned long long)spin_n, (unsigned long long)(now_ns() - t0));
	return 0;
}

static int write_pid(const char *dir)
{
	char path[4096], pid[32];
	int fd, n, ok;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	n = snprintf(pid, sizeof(pid), "%d\n", getpid());
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -1;
	ok = write(fd, pid, n) == n;
	close(fd);
	return ok ? 0 : -1;
}

static uint64_t read_counter(int fd)
{
	char buf[32];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return 0;
	buf[n] = 0;
	return strtoull(buf, NULL, 10);
}

/* Run CMD... SNAP; a pidfd that turns readable when it has exited. */
/* Run cmd with snap appended; its pidfd, watched by epoll ep (data ~0), or -1. */
static int spawn_snap(int ep, char **cmd, int ncmd, const char *snap, pid_t *pid)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = UINT64_MAX };
	char *argv[64];
	int i, fd;

	if (ncmd > 62)
		return -1;
	for (i = 0; i < ncmd; i++)
		argv[i] = cmd[i];
	argv[ncmd] = (char *)snap;
	argv[ncmd + 1] = NULL;
	*pid = fork();
	if (*pid < 0)
		return -1;
	if (*pid == 0) {
		execvp(argv[0], argv);
		_exit(127);
	}
	fd = syscall(SYS_pidfd_open, *pid, 0);
	if (fd >= 0)
		epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
	return fd;
}

#define CG_BATCH 16

static int cmd_cgsend(char **argv, char **cmd, int ncmd)
{
	const char *dst = argv[0], *dev = argv[1], *cgdir = argv[2];
	long n = atol(argv[3]), active = atol(argv[4]);
	int sndbuf = atoi(argv[5]);
	uint64_t warm = (uint64_t)atol(argv[6]) * 1000000, win = (uint64_t)atol(argv[7]) * 1000000;
	double spin_ns = atof(argv[8]);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(9) };
	static char payload[18];
	struct iovec iov = { .iov_base = payload, .iov_len = sizeof(payload) };
	struct mmsghdr msgs[CG_BATCH];
	struct epoll_event ev, evs[256];
	char path[4096], home[4200] = "/sys/fs/cgroup";
	uint64_t t_start, c0 = 0, c1 = 0, s0 = 0, s1 = 0, p0 = 0, p1 = 0;
	uint64_t sent = 0, sent0 = 0;
	int *fds, ep, txfd, snapfd = -1, phase = 0, st;
	pid_t snap_pid = 0;
	pthread_t spinner;
	struct rlimit lim;
	FILE *f;
	long j;

	if (n < 1 || active < 1 || active > n || inet_pton(AF_INET, dst, &a.sin_addr) != 1) {
		fprintf(stderr, "benchtool: cgsend: bad N, ACTIVE or DST\n");
		return 2;
	}
	/* Come back to this cgroup when the sockets are made. */
	f = fopen("/proc/self/cgroup", "r");
	if (f && fgets(path, sizeof(path), f) && !strncmp(path, "0::", 3)) {
		path[strcspn(path, "\n")] = 0;
		snprintf(home, sizeof(home), "/sys/fs/cgroup%s", path + 3);
	}
	if (f)
		fclose(f);
	snprintf(path, sizeof(path), "/sys/class/net/%s/statistics/tx_packets", dev);
	txfd = open(path, O_RDONLY);
	/* A socket for each sending cgroup: 1,024 and the rest exceed the
	 * default limit of 1,024 open files. */
	lim.rlim_cur = lim.rlim_max = active + 64;
	if (active + 64 > 1024 && setrlimit(RLIMIT_NOFILE, &lim))
		return die("RLIMIT_NOFILE");
	fds = calloc(active, sizeof(*fds));
	ep = epoll_create1(0);
	if (txfd < 0 || !fds || ep < 0)
		return die("setup");
	/* A socket belongs to the cgroup of the task that made it, for life. */
	for (j = 0; j < active; j++) {
		snprintf(path, sizeof(path), "%s/%ld", cgdir, j * n / active);
		if (write_pid(path))
			return die(path);
		fds[j] = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
		if (fds[j] < 0 ||
		    setsockopt(fds[j], SOL_SOCKET, SO_SNDBUFFORCE, &sndbuf, sizeof(sndbuf)) ||
		    connect(fds[j], (struct sockaddr *)&a, sizeof(a)))
			return die("socket");
		ev.events = EPOLLOUT;
		ev.data.u64 = j;
		if (epoll_ctl(ep, EPOLL_CTL_ADD, fds[j], &ev))
			return die("epoll_ctl");
	}
	if (write_pid(home))
		return die(home);
	memset(msgs, 0, sizeof(msgs));
	for (j = 0; j < CG_BATCH; j++) {
		msgs[j].msg_hdr.msg_iov = &iov;
		msgs[j].msg_hdr.msg_iovlen = 1;
	}
	t_start = now_ns();
	while (phase < 4) {
		uint64_t t = now_ns();
		int i, k, timeout = -1;

		/* 0: warming up; 1: the first snapshot runs; 2: the window;
		 * 3: the second snapshot runs. */
		if (phase == 0 && t >= t_start + warm) {
			snapfd = spawn_snap(ep, cmd, ncmd, "0", &snap_pid);
			if (snapfd < 0)
				return die("snapshot");
			phase = 1;
		} else if (phase == 2 && t >= c0 + win) {
			c1 = now_ns();
			s1 = spin_n;
			p1 = read_counter(txfd);
			/* Idle time outside the window is the host's to skip. */
			spin_quit = 1;
			pthread_join(spinner, NULL);
			sent0 = sent - sent0;
			snapfd = spawn_snap(ep, cmd, ncmd, "1", &snap_pid);
			if (snapfd < 0)
				return die("snapshot");
			phase = 3;
		}
		if (phase == 0)
			timeout = (t_start + warm - t) / 1000000 + 1;
		else if (phase == 2)
			timeout = (c0 + win - t) / 1000000 + 1;
		k = epoll_wait(ep, evs, 256, timeout);
		if (k < 0 && errno != EINTR)
			return die("epoll_wait");
		for (i = 0; i < k; i++) {
			int fd, m;

			if (evs[i].data.u64 == UINT64_MAX) {
				if (waitpid(snap_pid, &st, 0) < 0 || !WIFEXITED(st) ||
				    WEXITSTATUS(st)) {
					fprintf(stderr,
						"benchtool: cgsend: the snapshot command failed\n");
					return 1;
				}
				epoll_ctl(ep, EPOLL_CTL_DEL, snapfd, NULL);
				close(snapfd);
				if (phase == 1) {
					if (pthread_create(&spinner, NULL, spin_thread, NULL))
						return die("pthread_create");
					c0 = now_ns();
					s0 = spin_n;
					p0 = read_counter(txfd);
					sent0 = sent;
					phase = 2;
				} else {
					phase = 4;
				}
				continue;
			}
			/* One batch a writable socket a round: a qdisc that
			 * drops (UDP ignores ENOBUFS) cannot keep the loop
			 * from its clock. */
			fd = fds[evs[i].data.u64];
			m = sendmmsg(fd, msgs, CG_BATCH, MSG_DONTWAIT);
			if (m > 0)
				sent += m;
			else if (m < 0 && errno != EAGAIN)
				return die("sendmmsg");
		}
	}
	printf("%llu %.0f %llu %llu\n", (unsigned long long)(p1 - p0),
	       (double)(c1 - c0) - (double)(s1 - s0) * spin_ns, (unsigned long long)(c1 - c0),
	       (unsigned long long)sent0);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "seqcheck"))
		return cmd_seqcheck(atoi(argv[2]), atoi(argv[3]));
	if (argc >= 3 && !strcmp(argv[1], "progstat"))
		return cmd_progstat(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "now")) {
		printf("%llu\n", (unsigned long long)now_ns());
		return 0;
	}
	if (argc >= 3 && !strcmp(argv[1], "time"))
		return cmd_time(argv + 2);
	if (argc == 3 && !strcmp(argv[1], "rr-server"))
		return cmd_rr_server(atoi(argv[2]));
	if ((argc == 5 || argc == 6) && !strcmp(argv[1], "rr-client"))
		return cmd_rr_client(argv[2], atoi(argv[3]), atol(argv[4]),
				     argc == 6 ? strtoul(argv[5], NULL, 0) : 1);
	if ((argc == 2 || argc == 3) && !strcmp(argv[1], "spin"))
		return cmd_spin(argc == 3 ? atol(argv[2]) : 0);
	if (argc == 3 && !strcmp(argv[1], "cgspin"))
		return cmd_cgspin(atol(argv[2]));
	if (argc >= 12 && !strcmp(argv[1], "cgsend"))
		return cmd_cgsend(argv + 2, argv + 11, argc - 11);
	fprintf(stderr,
		"usage: benchtool now | time CMD... | progstat NAME... | seqcheck PORT IDLE_MS |\n"
		"       rr-server PORT | rr-client ADDR PORT MS [SIZE] | spin [MS] | cgspin MS |\n"
		"       cgsend DST DEV CGDIR N ACTIVE SNDBUF WARM_MS WIN_MS SPIN_NS CMD...\n");
	return 2;
}
