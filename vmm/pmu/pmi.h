/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PMUVM_PMI_H
#define PMUVM_PMI_H

struct vcpu;

/* Delivers one PMI through the vCPU's LVT performance-counter entry. */
void pmi_deliver(struct vcpu *vcpu);

#endif
