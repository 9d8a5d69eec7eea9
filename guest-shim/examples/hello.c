/* SPDX-License-Identifier: MIT */
/*
 * hello: the smallest pmuvm guest.  It prints on the serial console, sends
 * pmuvm one named value and one passed check as ucalls (they are in
 * pmuvm's --report under "guest"), and leaves with an exit status:
 *
 *	pmuvm hello.elf                 status 1: main() returned 0
 *	pmuvm --append fail hello.elf   status 3: main() returned 1
 */
#include <rt.h>

int main(void)
{
	uint64_t ram = mbi_ram_total();

	printf("hello: a pmuvm guest on %d cpu%s with %llu KiB of RAM\n", rt_nr_cpus(),
	       rt_nr_cpus() == 1 ? "" : "s", (unsigned long long)(ram >> 10));
	GUEST_VALUE("hello.ram_kib", ram >> 10);
	test_ok("hello");
	if (mbi_arg("fail")) {
		puts("hello: asked to fail");
		return 1;
	}
	return 0;
}
