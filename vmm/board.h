/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PMUVM_BOARD_H
#define PMUVM_BOARD_H

#include "machine/vm.h"

/* pmuvm's one board (board.c). */
extern const struct board pmuvm_board;

#endif
