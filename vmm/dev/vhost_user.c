/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vhost-user messages (QEMU's docs/interop/vhost-user.rst): a 12-byte
 * header {request, flags, size} and the payload, in the host's byte order
 * (little-endian on x86).
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "boot/le.h"
#include "dev/vhost_user.h"

static void msg_start(struct vhost_user_msg *m, enum vhost_user_request req, uint32_t size)
{
	memset(m, 0, sizeof(*m));
	m->request = req;
	m->flags = VHOST_USER_VERSION;
	m->size = size;
}

void vhost_user_msg_none(struct vhost_user_msg *m, enum vhost_user_request req)
{
	msg_start(m, req, 0);
}

void vhost_user_msg_u64(struct vhost_user_msg *m, enum vhost_user_request req, uint64_t v)
{
	msg_start(m, req, 8);
	put64(m->payload, v);
}

void vhost_user_msg_state(struct vhost_user_msg *m, enum vhost_user_request req,
			  uint32_t index, uint32_t num)
{
	msg_start(m, req, 8);
	put32(m->payload, index);
	put32(m->payload + 4, num);
}

/* struct vhost_vring_addr: index, flags, then the descriptor, used, avail and log addresses. */
void vhost_user_msg_addr(struct vhost_user_msg *m, uint32_t index, uint64_t desc,
			 uint64_t used, uint64_t avail)
{
	msg_start(m, VHOST_USER_SET_VRING_ADDR, 40);
	put32(m->payload, index);
	put32(m->payload + 4, 0);		/* no used-ring logging */
	put64(m->payload + 8, desc);
	put64(m->payload + 16, used);
	put64(m->payload + 24, avail);
	put64(m->payload + 32, 0);
}

void vhost_user_msg_vring_fd(struct vhost_user_msg *m, enum vhost_user_request req,
			     uint32_t index, int has_fd)
{
	vhost_user_msg_u64(m, req, (index & 0xff) | (has_fd ? 0 : VHOST_USER_VRING_NOFD));
}

/* A memory table: nregions, padding, then each region's four u64s. */
int vhost_user_msg_mem_table(struct vhost_user_msg *m, const struct vhost_user_region *r,
			     unsigned int n)
{
	unsigned int i;

	if (n > VHOST_USER_MAX_REGIONS)
		return -E2BIG;
	msg_start(m, VHOST_USER_SET_MEM_TABLE, 8 + 32 * n);
	put32(m->payload, n);
	for (i = 0; i < n; i++) {
		uint8_t *p = m->payload + 8 + 32 * i;

		put64(p, r[i].guest_phys_addr);
		put64(p + 8, r[i].memory_size);
		put64(p + 16, r[i].userspace_addr);
		put64(p + 24, r[i].mmap_offset);
	}
	return 0;
}

int vhost_user_reply_u64(const struct vhost_user_msg *m, enum vhost_user_request req,
			 uint64_t *v)
{
	if (m->request != (uint32_t)req || !(m->flags & VHOST_USER_FLAG_REPLY) ||
	    (m->flags & 3) != VHOST_USER_VERSION || m->size != 8)
		return -EPROTO;
	*v = le64(m->payload);
	return 0;
}

size_t vhost_user_msg_len(const struct vhost_user_msg *m)
{
	return VHOST_USER_HDR_SIZE + m->size;
}

int vhost_user_send(int sock, const struct vhost_user_msg *m, const int *fds, unsigned int nfds)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * VHOST_USER_MAX_REGIONS)];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = { .iov_base = (void *)m, .iov_len = vhost_user_msg_len(m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	if (nfds > VHOST_USER_MAX_REGIONS)
		return -E2BIG;
	if (nfds) {
		struct cmsghdr *c;

		memset(&ctl, 0, sizeof(ctl));
		mh.msg_control = ctl.buf;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * nfds);
	}
	do
		n = sendmsg(sock, &mh, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return (size_t)n == iov.iov_len ? 0 : -EIO;
}

static int recv_all(int sock, void *buf, size_t len)
{
	uint8_t *p = buf;

	while (len) {
		ssize_t n = recv(sock, p, len, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EPIPE;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int vhost_user_recv(int sock, struct vhost_user_msg *m)
{
	int r = recv_all(sock, m, VHOST_USER_HDR_SIZE);

	if (r)
		return r;
	if (m->size > sizeof(m->payload))
		return -EPROTO;
	return recv_all(sock, m->payload, m->size);
}
