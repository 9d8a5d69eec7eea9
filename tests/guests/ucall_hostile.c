/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ucall_hostile: ucalls that pmuvm must refuse (include/pmuvm/ucall.h) one
 * after the other, then ordinary ones; pmuvm must record each bad one as
 * invalid with its reason, warn without stopping or reading outside guest
 * RAM, and still take the results that follow (tests/system/test_ucall.c
 * checks the report against the list below, in order). Run with --mem 64M
 * or more.
 */
#include <rt.h>
#include <rt/ucall.h>

#define LAPIC_MMIO	0xfee00000u

static struct ucall_msg msg;
static unsigned int sent;

static void send_bad_address(uint32_t gpa)
{
	ucall_out(gpa);
	sent++;
}

static void send_bad(void)
{
	ucall_send(&msg);
	sent++;
}

int main(void)
{
	uint64_t ram = fwcfg_read_u64(FW_CFG_RAM_SIZE);

	GUEST_ASSERT(ram >= (64u << 20) && ram <= 0xc0000000u);
	/* 1-4: messages not (all) in guest RAM. */
	send_bad_address((uint32_t)ram);
	send_bad_address((uint32_t)ram - 100);
	send_bad_address(LAPIC_MMIO);
	send_bad_address(0xffffffffu);

	/* 5-11: messages in RAM that break the protocol. */
	ucall_msg_init(&msg, UCALL_CMD_OK);
	msg.text[0] = 'x';
	msg.magic = 0;
	send_bad();
	ucall_msg_init(&msg, 0xdeadbeef);
	msg.text[0] = 'x';
	send_bad();
	ucall_msg_init(&msg, UCALL_CMD_FAIL);
	msg.nr_values = 0xffffffffu;
	send_bad();
	ucall_msg_init(&msg, UCALL_CMD_FAIL);
	memset(msg.file, 'A', sizeof(msg.file));
	send_bad();
	ucall_msg_init(&msg, UCALL_CMD_FAIL);
	memset(msg.text, 'B', sizeof(msg.text));
	send_bad();
	ucall_msg_init(&msg, UCALL_CMD_OK);
	send_bad();
	ucall_msg_init(&msg, UCALL_CMD_DONE);
	send_bad();

	/* 12-14: port accesses other than one 4-byte OUT at the port. */
	outb(UCALL_PORT, 0x12);
	outw(UCALL_PORT + 2, 0x3456);
	outl(UCALL_PORT + 1, 0x1000);
	sent += 3;

	/* Reads: as an unclaimed port, under pmuvm and QEMU alike. */
	GUEST_ASSERT_EQ(inl(UCALL_PORT), 0xffffffffu);

	/* A name with a line break and a terminal escape: recorded, made printable. */
	ucall_value("evil\n\x1b[2Jname", 1, (const uint64_t[]){ 7 });
	GUEST_VALUE("ucall_hostile message", (uintptr_t)&msg);
	GUEST_VALUE("ucall_hostile invalid sent", sent);
	test_ok("ucall_hostile");
	return 0;
}
