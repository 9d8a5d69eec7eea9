/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The front end of the vhost-user protocol (QEMU's docs/interop/
 * vhost-user.rst): messages to a back end such as virtiofsd over a unix
 * socket, file descriptors passed with SCM_RIGHTS. The encoders are pure
 * (unit-tested); vhost_user_send()/vhost_user_recv() do the I/O. pmuvm
 * negotiates no protocol features, so only GET_* requests are answered and
 * every ring is enabled once its kick descriptor arrives.
 */
#ifndef PMUVM_VHOST_USER_H
#define PMUVM_VHOST_USER_H

#include <stddef.h>
#include <stdint.h>

/* Front-end requests (vhost-user.rst, "Front-end message types"). */
enum vhost_user_request {
	VHOST_USER_GET_FEATURES = 1,
	VHOST_USER_SET_FEATURES = 2,
	VHOST_USER_SET_OWNER = 3,
	VHOST_USER_RESET_OWNER = 4,
	VHOST_USER_SET_MEM_TABLE = 5,
	VHOST_USER_SET_VRING_NUM = 8,
	VHOST_USER_SET_VRING_ADDR = 9,
	VHOST_USER_SET_VRING_BASE = 10,
	VHOST_USER_GET_VRING_BASE = 11,
	VHOST_USER_SET_VRING_KICK = 12,
	VHOST_USER_SET_VRING_CALL = 13,
	VHOST_USER_GET_PROTOCOL_FEATURES = 15,
	VHOST_USER_SET_PROTOCOL_FEATURES = 16,
	VHOST_USER_SET_VRING_ENABLE = 18,
};

#define VHOST_USER_VERSION		0x1
#define VHOST_USER_FLAG_REPLY		(1u << 2)
#define VHOST_USER_FLAG_NEED_REPLY	(1u << 3)
#define VHOST_USER_HDR_SIZE		12
#define VHOST_USER_MAX_REGIONS		8
#define VHOST_USER_VRING_NOFD		(1u << 8)	/* kick/call/err payload: no fd */
#define VHOST_USER_F_PROTOCOL_FEATURES	30		/* a feature bit, not virtio's */
#define VHOST_USER_MAX_PAYLOAD		(8 + VHOST_USER_MAX_REGIONS * 32)

struct vhost_user_region {
	uint64_t guest_phys_addr;
	uint64_t memory_size;
	uint64_t userspace_addr;	/* the front end's address of it */
	uint64_t mmap_offset;		/* of the region in the fd sent with it */
};

/* One message as it goes on the wire: header, then `size` bytes of payload. */
struct vhost_user_msg {
	uint32_t request;
	uint32_t flags;
	uint32_t size;
	uint8_t payload[VHOST_USER_MAX_PAYLOAD];
};

/* Encoders: fill `m` (little-endian, the protocol's byte order on x86). */
void vhost_user_msg_none(struct vhost_user_msg *m, enum vhost_user_request req);
void vhost_user_msg_u64(struct vhost_user_msg *m, enum vhost_user_request req, uint64_t v);
/* SET_VRING_NUM, SET_VRING_BASE, GET_VRING_BASE, SET_VRING_ENABLE. */
void vhost_user_msg_state(struct vhost_user_msg *m, enum vhost_user_request req,
			  uint32_t index, uint32_t num);
void vhost_user_msg_addr(struct vhost_user_msg *m, uint32_t index, uint64_t desc,
			 uint64_t used, uint64_t avail);
/* SET_VRING_KICK/CALL: the fd goes with it; has_fd false sets VHOST_USER_VRING_NOFD. */
void vhost_user_msg_vring_fd(struct vhost_user_msg *m, enum vhost_user_request req,
			     uint32_t index, int has_fd);
/* 0, or -E2BIG for more than VHOST_USER_MAX_REGIONS. */
int vhost_user_msg_mem_table(struct vhost_user_msg *m, const struct vhost_user_region *r,
			     unsigned int n);

/* The u64 payload of a reply to `req`: 0, or -EPROTO when it is not one. */
int vhost_user_reply_u64(const struct vhost_user_msg *m, enum vhost_user_request req,
			 uint64_t *v);
/* Bytes of `m` on the wire. */
size_t vhost_user_msg_len(const struct vhost_user_msg *m);

/* Sends `m` with `nfds` descriptors: 0 or negative errno. */
int vhost_user_send(int sock, const struct vhost_user_msg *m, const int *fds, unsigned int nfds);
/* Receives one message: 0, -EPIPE when the back end closed, -EPROTO, or negative errno. */
int vhost_user_recv(int sock, struct vhost_user_msg *m);

#endif
