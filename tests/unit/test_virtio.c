/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The virtio-mmio register model (vmm/dev/virtio_mmio.c) driven as Linux's
 * virtio_mmio driver drives it, and the vhost-user encoders
 * (vmm/dev/vhost_user.c) against the byte layouts of QEMU's
 * docs/interop/vhost-user.rst; the socket I/O through a socketpair, with
 * descriptors passed.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "boot/le.h"
#include "dev/vhost_user.h"
#include "dev/virtio_mmio.h"
#include "suite.h"

static struct virtio_mmio vm;
static unsigned int nr_driver_ok, nr_reset, nr_notify, last_notify;
static int driver_ok_result;
static const uint8_t config[8] = { 'h', 'o', 's', 't', 0, 0, 0x01, 0x02 };

static int t_driver_ok(struct virtio_mmio *m)
{
	ck_assert_ptr_eq(m, &vm);
	nr_driver_ok++;
	return driver_ok_result;
}

static void t_reset(struct virtio_mmio *m)
{
	nr_reset++;
}

static void t_notify(struct virtio_mmio *m, unsigned int q)
{
	nr_notify++;
	last_notify = q;
}

static const struct virtio_mmio_ops t_ops = {
	.driver_ok = t_driver_ok, .reset = t_reset, .notify = t_notify,
};

#define FEATURES	((1ULL << VIRTIO_F_VERSION_1) | (1ULL << VIRTIO_RING_F_EVENT_IDX) | 1)

static void setup(void)
{
	nr_driver_ok = nr_reset = nr_notify = 0;
	driver_ok_result = 0;
	virtio_mmio_init(&vm, VIRTIO_ID_FS, FEATURES, 2, 256, config, sizeof(config), &t_ops, NULL);
}

static uint32_t rd(uint32_t off)
{
	return virtio_mmio_read(&vm, off, 4);
}

static void wr(uint32_t off, uint32_t v)
{
	virtio_mmio_write(&vm, off, v, 4);
}

/* Linux's vm_setup_vq() for queue `q` of `num` entries at `base`. */
static void setup_queue(uint32_t q, uint32_t num, uint64_t base)
{
	wr(VIRTIO_MMIO_QUEUE_SEL, q);
	ck_assert_uint_eq(rd(VIRTIO_MMIO_QUEUE_READY), 0);
	ck_assert_uint_eq(rd(VIRTIO_MMIO_QUEUE_NUM_MAX), 256);
	wr(VIRTIO_MMIO_QUEUE_NUM, num);
	wr(VIRTIO_MMIO_QUEUE_DESC_LOW, (uint32_t)base);
	wr(VIRTIO_MMIO_QUEUE_DESC_HIGH, (uint32_t)(base >> 32));
	wr(VIRTIO_MMIO_QUEUE_AVAIL_LOW, (uint32_t)(base + 0x1000));
	wr(VIRTIO_MMIO_QUEUE_AVAIL_HIGH, (uint32_t)((base + 0x1000) >> 32));
	wr(VIRTIO_MMIO_QUEUE_USED_LOW, (uint32_t)(base + 0x2000));
	wr(VIRTIO_MMIO_QUEUE_USED_HIGH, (uint32_t)((base + 0x2000) >> 32));
	wr(VIRTIO_MMIO_QUEUE_READY, 1);
}

/* The driver's probe and start-up, as drivers/virtio/virtio_mmio.c does them. */
static void bring_up(uint64_t accept)
{
	wr(VIRTIO_MMIO_STATUS, 0);
	wr(VIRTIO_MMIO_STATUS, VIRTIO_STATUS_ACKNOWLEDGE);
	wr(VIRTIO_MMIO_STATUS, VIRTIO_STATUS_ACKNOWLEDGE | VIRTIO_STATUS_DRIVER);
	wr(VIRTIO_MMIO_DRIVER_FEATURES_SEL, 0);
	wr(VIRTIO_MMIO_DRIVER_FEATURES, (uint32_t)accept);
	wr(VIRTIO_MMIO_DRIVER_FEATURES_SEL, 1);
	wr(VIRTIO_MMIO_DRIVER_FEATURES, (uint32_t)(accept >> 32));
	wr(VIRTIO_MMIO_STATUS, VIRTIO_STATUS_ACKNOWLEDGE | VIRTIO_STATUS_DRIVER |
	   VIRTIO_STATUS_FEATURES_OK);
}

START_TEST(test_identity)
{
	ck_assert_uint_eq(rd(VIRTIO_MMIO_MAGIC_VALUE), 0x74726976);
	ck_assert_uint_eq(rd(VIRTIO_MMIO_VERSION), 2);
	ck_assert_uint_eq(rd(VIRTIO_MMIO_DEVICE_ID), 26);
	wr(VIRTIO_MMIO_DEVICE_FEATURES_SEL, 0);
	ck_assert_uint_eq(rd(VIRTIO_MMIO_DEVICE_FEATURES), (uint32_t)FEATURES);
	wr(VIRTIO_MMIO_DEVICE_FEATURES_SEL, 1);
	ck_assert_uint_eq(rd(VIRTIO_MMIO_DEVICE_FEATURES), 1);		/* VERSION_1 */
	wr(VIRTIO_MMIO_DEVICE_FEATURES_SEL, 2);
	ck_assert_uint_eq(rd(VIRTIO_MMIO_DEVICE_FEATURES), 0);
	/* No shared memory regions; narrow accesses to registers read 0. */
	ck_assert_uint_eq(rd(VIRTIO_MMIO_SHM_LEN_LOW), 0xffffffff);
	ck_assert_uint_eq(virtio_mmio_read(&vm, VIRTIO_MMIO_MAGIC_VALUE, 1), 0);
	ck_assert_uint_eq(virtio_mmio_read(&vm, VIRTIO_MMIO_MAGIC_VALUE + 2, 4), 0);
}
END_TEST

START_TEST(test_config_space)
{
	ck_assert_uint_eq(virtio_mmio_read(&vm, VIRTIO_MMIO_CONFIG, 1), 'h');
	ck_assert_uint_eq(virtio_mmio_read(&vm, VIRTIO_MMIO_CONFIG + 1, 2), 's' << 8 | 'o');
	ck_assert_uint_eq(virtio_mmio_read(&vm, VIRTIO_MMIO_CONFIG + 4, 4), 0x02010000);
	/* Past its end, or straddling it: 0; read-only to the driver. */
	ck_assert_uint_eq(virtio_mmio_read(&vm, VIRTIO_MMIO_CONFIG + 6, 4), 0);
	ck_assert_uint_eq(virtio_mmio_read(&vm, VIRTIO_MMIO_CONFIG + 0x40, 1), 0);
	virtio_mmio_write(&vm, VIRTIO_MMIO_CONFIG, 'x', 1);
	ck_assert_uint_eq(virtio_mmio_read(&vm, VIRTIO_MMIO_CONFIG, 1), 'h');
}
END_TEST

START_TEST(test_bring_up)
{
	bring_up(FEATURES);
	ck_assert_uint_eq(rd(VIRTIO_MMIO_STATUS) & VIRTIO_STATUS_FEATURES_OK,
			  VIRTIO_STATUS_FEATURES_OK);
	ck_assert_uint_eq(vm.driver_features, FEATURES);
	setup_queue(0, 128, 0x1234500000ULL);
	setup_queue(1, 256, 0x40000);
	ck_assert_uint_eq(vm.queues[0].num, 128);
	ck_assert_uint_eq(vm.queues[0].desc, 0x1234500000ULL);
	ck_assert_uint_eq(vm.queues[0].avail, 0x1234501000ULL);
	ck_assert_uint_eq(vm.queues[0].used, 0x1234502000ULL);
	ck_assert(vm.queues[1].ready);
	/* A ready queue's registers hold still (4.2.2.3). */
	wr(VIRTIO_MMIO_QUEUE_SEL, 1);
	wr(VIRTIO_MMIO_QUEUE_NUM, 64);
	ck_assert_uint_eq(vm.queues[1].num, 256);
	ck_assert_uint_eq(rd(VIRTIO_MMIO_INTERRUPT_STATUS), 0);
	wr(VIRTIO_MMIO_STATUS, rd(VIRTIO_MMIO_STATUS) | VIRTIO_STATUS_DRIVER_OK);
	ck_assert_uint_eq(nr_driver_ok, 1);
	ck_assert(vm.live);
	ck_assert_uint_eq(rd(VIRTIO_MMIO_STATUS), 0xf);
	ck_assert_uint_eq(rd(VIRTIO_MMIO_INTERRUPT_STATUS), VIRTIO_MMIO_INT_VRING);
	wr(VIRTIO_MMIO_QUEUE_NOTIFY, 1);
	ck_assert_uint_eq(nr_notify, 1);
	ck_assert_uint_eq(last_notify, 1);
	wr(VIRTIO_MMIO_QUEUE_NOTIFY, 7);		/* no such queue */
	ck_assert_uint_eq(nr_notify, 1);
	/* Reset: the device stops, every register the driver set is cleared. */
	wr(VIRTIO_MMIO_STATUS, 0);
	ck_assert_uint_eq(nr_reset, 1);
	ck_assert(!vm.live);
	ck_assert_uint_eq(rd(VIRTIO_MMIO_STATUS), 0);
	ck_assert_uint_eq(vm.driver_features, 0);
	ck_assert(!vm.queues[1].ready);
	wr(VIRTIO_MMIO_STATUS, 0);
	ck_assert_uint_eq(nr_reset, 1);
}
END_TEST

START_TEST(test_bad_features_and_queues)
{
	/* More than offered, or without VERSION_1: FEATURES_OK does not stick (3.1.1). */
	bring_up(FEATURES | (1ULL << 5));
	ck_assert_uint_eq(rd(VIRTIO_MMIO_STATUS) & VIRTIO_STATUS_FEATURES_OK, 0);
	bring_up(1);
	ck_assert_uint_eq(rd(VIRTIO_MMIO_STATUS) & VIRTIO_STATUS_FEATURES_OK, 0);
	/* DRIVER_OK without FEATURES_OK: the device needs a reset, nothing started. */
	wr(VIRTIO_MMIO_STATUS, rd(VIRTIO_MMIO_STATUS) | VIRTIO_STATUS_DRIVER_OK);
	ck_assert_uint_eq(nr_driver_ok, 0);
	ck_assert_uint_eq(rd(VIRTIO_MMIO_STATUS) & (VIRTIO_STATUS_DRIVER_OK | VIRTIO_STATUS_NEEDS_RESET),
			  VIRTIO_STATUS_NEEDS_RESET);
	/* Queue sizes: powers of two up to QueueNumMax; queues beyond nr_queues do not exist. */
	bring_up(FEATURES);
	wr(VIRTIO_MMIO_QUEUE_SEL, 0);
	wr(VIRTIO_MMIO_QUEUE_NUM, 100);
	ck_assert_uint_eq(vm.queues[0].num, 0);
	wr(VIRTIO_MMIO_QUEUE_NUM, 512);
	ck_assert_uint_eq(vm.queues[0].num, 0);
	wr(VIRTIO_MMIO_QUEUE_SEL, 2);
	ck_assert_uint_eq(rd(VIRTIO_MMIO_QUEUE_NUM_MAX), 0);
	wr(VIRTIO_MMIO_QUEUE_READY, 1);
	ck_assert_uint_eq(rd(VIRTIO_MMIO_QUEUE_READY), 0);
	/* A back end that fails to start: NEEDS_RESET instead of DRIVER_OK. */
	driver_ok_result = -EPIPE;
	wr(VIRTIO_MMIO_STATUS, rd(VIRTIO_MMIO_STATUS) | VIRTIO_STATUS_DRIVER_OK);
	ck_assert_uint_eq(nr_driver_ok, 1);
	ck_assert(!vm.live);
	ck_assert_uint_eq(rd(VIRTIO_MMIO_STATUS) & (VIRTIO_STATUS_DRIVER_OK | VIRTIO_STATUS_NEEDS_RESET),
			  VIRTIO_STATUS_NEEDS_RESET);
	wr(VIRTIO_MMIO_QUEUE_NOTIFY, 0);
	ck_assert_uint_eq(nr_notify, 0);
}
END_TEST

/* Header: request, flags (version 1), size; then the payload, little-endian. */
START_TEST(test_vhost_user_encoding)
{
	struct vhost_user_msg m;
	const uint8_t *b = (const uint8_t *)&m;
	struct vhost_user_region r[2] = {
		{ 0, 0xc0000000ULL, 0x7f0000000000ULL, 0 },
		{ 0x100000000ULL, 0x40000000ULL, 0x7f00c0000000ULL, 0xc0000000ULL },
	};
	struct vhost_user_region many[VHOST_USER_MAX_REGIONS + 1] = { 0 };
	uint64_t v;

	vhost_user_msg_none(&m, VHOST_USER_GET_FEATURES);
	ck_assert_uint_eq(vhost_user_msg_len(&m), 12);
	ck_assert_uint_eq(le32(b), 1);
	ck_assert_uint_eq(le32(b + 4), 1);
	ck_assert_uint_eq(le32(b + 8), 0);

	vhost_user_msg_u64(&m, VHOST_USER_SET_FEATURES, 0x0000000130000001ULL);
	ck_assert_uint_eq(vhost_user_msg_len(&m), 20);
	ck_assert_uint_eq(le32(b), 2);
	ck_assert_uint_eq(le64(b + 12), 0x0000000130000001ULL);

	vhost_user_msg_state(&m, VHOST_USER_SET_VRING_NUM, 1, 1024);
	ck_assert_uint_eq(le32(b), 8);
	ck_assert_uint_eq(le32(b + 8), 8);
	ck_assert_uint_eq(le32(b + 12), 1);
	ck_assert_uint_eq(le32(b + 16), 1024);

	vhost_user_msg_addr(&m, 1, 0x1000, 0x3000, 0x2000);
	ck_assert_uint_eq(le32(b), 9);
	ck_assert_uint_eq(le32(b + 8), 40);
	ck_assert_uint_eq(le32(b + 12), 1);
	ck_assert_uint_eq(le32(b + 16), 0);
	ck_assert_uint_eq(le64(b + 20), 0x1000);	/* descriptors */
	ck_assert_uint_eq(le64(b + 28), 0x3000);	/* used */
	ck_assert_uint_eq(le64(b + 36), 0x2000);	/* avail */
	ck_assert_uint_eq(le64(b + 44), 0);		/* log */

	vhost_user_msg_vring_fd(&m, VHOST_USER_SET_VRING_KICK, 1, 1);
	ck_assert_uint_eq(le32(b), 12);
	ck_assert_uint_eq(le64(b + 12), 1);
	vhost_user_msg_vring_fd(&m, VHOST_USER_SET_VRING_CALL, 0, 0);
	ck_assert_uint_eq(le32(b), 13);
	ck_assert_uint_eq(le64(b + 12), 0x100);

	ck_assert_int_eq(vhost_user_msg_mem_table(&m, r, 2), 0);
	ck_assert_uint_eq(le32(b), 5);
	ck_assert_uint_eq(le32(b + 8), 8 + 64);
	ck_assert_uint_eq(le32(b + 12), 2);
	ck_assert_uint_eq(le64(b + 20 + 32), 0x100000000ULL);
	ck_assert_uint_eq(le64(b + 20 + 40), 0x40000000ULL);
	ck_assert_uint_eq(le64(b + 20 + 48), 0x7f00c0000000ULL);
	ck_assert_uint_eq(le64(b + 20 + 56), 0xc0000000ULL);
	ck_assert_int_eq(vhost_user_msg_mem_table(&m, many, VHOST_USER_MAX_REGIONS + 1), -E2BIG);

	/* Replies: the request echoed, the reply flag, version 1, an 8-byte payload. */
	vhost_user_msg_u64(&m, VHOST_USER_GET_FEATURES, 42);
	ck_assert_int_eq(vhost_user_reply_u64(&m, VHOST_USER_GET_FEATURES, &v), -EPROTO);
	m.flags |= VHOST_USER_FLAG_REPLY;
	ck_assert_int_eq(vhost_user_reply_u64(&m, VHOST_USER_GET_FEATURES, &v), 0);
	ck_assert_uint_eq(v, 42);
	ck_assert_int_eq(vhost_user_reply_u64(&m, VHOST_USER_GET_PROTOCOL_FEATURES, &v), -EPROTO);
	m.size = 4;
	ck_assert_int_eq(vhost_user_reply_u64(&m, VHOST_USER_GET_FEATURES, &v), -EPROTO);
}
END_TEST

START_TEST(test_vhost_user_io)
{
	struct vhost_user_msg m, got;
	int sv[2], fd, fds[2];
	struct msghdr mh;
	struct stat st, st2;
	union {
		char buf[CMSG_SPACE(sizeof(int) * 2)];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = { .iov_base = &got, .iov_len = sizeof(got) };
	struct cmsghdr *c;
	ssize_t n;

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	fd = open("/dev/null", O_RDONLY);
	ck_assert_int_ge(fd, 0);
	fds[0] = fds[1] = fd;
	vhost_user_msg_state(&m, VHOST_USER_SET_VRING_BASE, 1, 0);
	ck_assert_int_eq(vhost_user_send(sv[0], &m, fds, 2), 0);
	memset(&mh, 0, sizeof(mh));
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = ctl.buf;
	mh.msg_controllen = sizeof(ctl.buf);
	n = recvmsg(sv[1], &mh, 0);
	ck_assert_int_eq(n, 20);
	ck_assert_uint_eq(got.request, VHOST_USER_SET_VRING_BASE);
	c = CMSG_FIRSTHDR(&mh);
	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(c->cmsg_type, SCM_RIGHTS);
	ck_assert_uint_eq(c->cmsg_len, CMSG_LEN(sizeof(int) * 2));
	memcpy(fds, CMSG_DATA(c), sizeof(fds));
	ck_assert_int_eq(fstat(fd, &st), 0);
	ck_assert_int_eq(fstat(fds[1], &st2), 0);
	ck_assert_uint_eq(st.st_ino, st2.st_ino);
	close(fds[0]);
	close(fds[1]);

	/* A reply comes back whole; a closed peer is -EPIPE; an oversized one -EPROTO. */
	vhost_user_msg_u64(&m, VHOST_USER_GET_FEATURES, 0x140000000ULL);
	m.flags |= VHOST_USER_FLAG_REPLY;
	ck_assert_int_eq(vhost_user_send(sv[1], &m, NULL, 0), 0);
	ck_assert_int_eq(vhost_user_recv(sv[0], &got), 0);
	ck_assert_uint_eq(got.size, 8);
	ck_assert_uint_eq(le64(got.payload), 0x140000000ULL);
	m.size = 0xffff;
	ck_assert_int_eq(write(sv[1], &m, 12), 12);
	ck_assert_int_eq(vhost_user_recv(sv[0], &got), -EPROTO);
	close(sv[1]);
	ck_assert_int_eq(vhost_user_recv(sv[0], &got), -EPIPE);
	close(sv[0]);
	close(fd);
}
END_TEST

static Suite *virtio_suite(void)
{
	Suite *s = suite_create("virtio");
	TCase *tc = tcase_create("mmio");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_identity);
	tcase_add_test(tc, test_config_space);
	tcase_add_test(tc, test_bring_up);
	tcase_add_test(tc, test_bad_features_and_queues);
	suite_add_tcase(s, tc);
	tc = tcase_create("vhost_user");
	tcase_add_test(tc, test_vhost_user_encoding);
	tcase_add_test(tc, test_vhost_user_io);
	suite_add_tcase(s, tc);
	return s;
}

TEST_SUITE(virtio_suite)
