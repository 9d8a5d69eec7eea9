#include <stddef.h>

#include "kvm/vm.h"
#include "pmu/profile.h"

void profile_record(struct vcpu *vcpu, uint64_t overflow_bits)
{
	(void)vcpu;
	(void)overflow_bits;
}

int profile_write(struct vm *vm, const uint8_t *image, size_t image_size)
{
	(void)vm;
	(void)image;
	(void)image_size;
	return 0;
}
