#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Writes the seed corpora in fuzz/corpus/NAME/ (run from the repository root).

The seeds only give libFuzzer a start in each input layout (documented at the
top of fuzz/fuzz_NAME.c); rerun this when a layout changes.
"""
import os
import struct

MB_MAGIC = 0x1BADB002


def elf32(segs, entry, mb_flags=0x3):
    """ELF32 i386 executable with a multiboot header at 0x100, data from 0x200."""
    phoff, data_off = 52, 0x200
    out = bytearray(data_off)
    off = data_off
    phdrs = b""
    for paddr, data, memsz in segs:
        phdrs += struct.pack("<8I", 1, off, paddr, paddr, len(data), memsz, 7, 0x1000)
        out += data
        off += len(data)
    ident = b"\x7fELF" + bytes([1, 1, 1]) + bytes(9)
    eh = ident + struct.pack("<HHIIIIIHHHHHH", 2, 3, 1, entry, phoff, 0, 0, 52, 32,
                             len(segs), 0, 0, 0)
    out[0:52] = eh
    out[phoff:phoff + len(phdrs)] = phdrs
    out[0x100:0x10C] = struct.pack("<3I", MB_MAGIC, mb_flags, (-(MB_MAGIC + mb_flags)) & 0xFFFFFFFF)
    return bytes(out)


CODE = bytes([0x90, 0x90, 0xF4, 0xEB, 0xFD])


def multiboot():
    return {
        "one-segment": bytes([0, 0, 0, 0]) + elf32([(0x100000, CODE, 0x3000)], 0x100000),
        "two-segments-modules": bytes([5, 16, 2, 0x84]) +
        elf32([(0x100000, CODE, 0x1000), (0x200000, CODE * 4, 0x2000)], 0x200004),
        "low-segment": bytes([1, 0, 1, 0x01]) + elf32([(0x1000, CODE, 0x1000)], 0x1000),
        # With [0] = 0 the low RAM is exactly 2 MiB: BSS up to its last byte.
        "segment-at-ram-end": bytes([0, 0, 0, 0]) +
        elf32([(0x1FF000, CODE, 0x1000)], 0x1FF000),
    }


# Must match pmu_msrs[] in fuzz_vpmu_msr.c.
PMU_MSRS = [0xC1 + i for i in range(9)] + [0x186 + i for i in range(9)] + [0x1A0, 0x1D9] + \
    [0x309 + i for i in range(5)] + [0x329, 0x345] + [0x38D + i for i in range(7)] + \
    [0x3F1, 0x3F2, 0x3F6, 0x3F7] + [0x4C1 + i for i in range(9)] + [0x600, 0x14C1, 0x1309]


def elf64_vmlinux(segs, entry):
    """ELF64 x86-64 executable with a "Linux" note, as a kernel's vmlinux."""
    phoff = 64
    nph = len(segs) + 1
    data_off = phoff + 56 * nph
    note = struct.pack("<3I", 6, 4, 0x100) + b"Linux\0\0\0" + b"6.1\0"
    out = bytearray()
    body = note
    phdrs = struct.pack("<2I6Q", 4, 4, data_off, 0, 0, len(note), len(note), 4)
    off = data_off + len(note)
    for paddr, data, memsz in segs:
        phdrs += struct.pack("<2I6Q", 1, 7, off, 0xffffffff80000000 + paddr, paddr,
                             len(data), memsz, 0x200000)
        body += data
        off += len(data)
    ident = b"\x7fELF" + bytes([2, 1, 1]) + bytes(9)
    eh = ident + struct.pack("<HHIQQQIHHHHHH", 2, 62, 1, entry, phoff, 0, 0, 64, 56,
                             nph, 64, 0, 0)
    out += eh + phdrs + body
    return bytes(out)


def bzimage(payload):
    """A bzImage: 2 setup sectors with the boot protocol 2.15 header, then payload."""
    out = bytearray(3 * 512)
    out[0x1f1] = 2
    out[0x1fe:0x200] = b"\x55\xaa"
    out[0x202:0x206] = b"HdrS"
    struct.pack_into("<H", out, 0x206, 0x20f)
    struct.pack_into("<I", out, 0x22c, 0x7fffffff)
    struct.pack_into("<H", out, 0x236, 1)
    struct.pack_into("<I", out, 0x238, 2047)
    return bytes(out) + payload


def linux():
    return {
        "vmlinux": bytes([0x40, 0, 0x82, 1]) +
        elf64_vmlinux([(0x100000, CODE, 0x3000), (0x180000, CODE * 2, 0x1000)], 0x100000),
        "vmlinux-high": bytes([0x7f, 8, 4, 0]) + elf64_vmlinux([(0x1f0000, CODE, 0x1000)], 0x1f0002),
        "bzimage": bytes([0, 0, 0x81, 3]) + bzimage(CODE * 100),
    }


def msr(n):
    return bytes([PMU_MSRS.index(n)])


def wrmsr(n, value):
    return bytes([1]) + msr(n) + bytes([0]) + struct.pack("<Q", value)


def rdmsr(n):
    return bytes([0]) + msr(n)


def count(ev, n, cpl):
    return bytes([2, ev, 2]) + struct.pack("<Q", n) + bytes([cpl])


def vpmu():
    evtsel = 0xC0 | 1 << 16 | 1 << 17 | 1 << 20 | 1 << 22   # INST_RETIRED, OS, USR, INT, EN
    ops = (wrmsr(0x186, evtsel) + wrmsr(0x4C1, (1 << 48) - 3) + wrmsr(0x38D, 0xBBB) +
           wrmsr(0x38F, 0x7000000FF) + wrmsr(0x1D9, 1 << 12) + count(1, 5, 3) +
           bytes([3]) + rdmsr(0x38E) + wrmsr(0x390, 1 << 59 | 1) + bytes([4, 0, 0, 0, 0x40]) +
           bytes([5, 1, 0]) + bytes([6]))
    return {
        "v5-pebs": bytes([5, 8, 48, 3, 48, 0x1 | 0x2 | 0x4 | 0x8 | 4 << 4, 0xFF]) + ops,
        "v4": bytes([4, 4, 40, 3, 40, 0x3, 0x7F]) + ops,
        "v2": bytes([2, 2, 32, 2, 32, 0x2, 0x07]) + ops + wrmsr(0xC1, 0xFFFFFFFF),
        "v1": bytes([1, 2, 48, 0, 48, 0, 0xFF]) + wrmsr(0x186, evtsel) + count(1, 9, 0),
        "v0": bytes([0, 0, 0, 0, 0, 0, 0]) + rdmsr(0xC1) + wrmsr(0x1A0, 1),
        # One counter per privilege filter (OS only, USR only), counted at CPL 0, 1, 3.
        "v4-cpl-filters": bytes([4, 2, 48, 2, 48, 0x3, 0xFF]) +
        wrmsr(0x186, 0xC0 | 1 << 17 | 1 << 22) + wrmsr(0x187, 0xC0 | 1 << 16 | 1 << 22) +
        wrmsr(0x38D, 0x21) + wrmsr(0x38F, 0x300000003) +
        count(1, 3, 0) + count(1, 5, 1) + count(0, 7, 3) + count(1, 2, 3),
    }


def q(v):
    return struct.pack("<Q", v)


def pagewalk_input(mode, flags, cr3, la, length, ram, size0=7, hi=0x24, gpa1=0):
    return bytes([mode, flags]) + q(cr3) + q(la) + struct.pack("<H", length) + \
        bytes([size0, 0, hi, gpa1]) + bytes(ram).rstrip(b"\0")


def ram_with(entries, size=0x8000):
    ram = bytearray(size)
    for addr, width, value in entries:
        ram[addr:addr + width] = value.to_bytes(width, "little")
    return ram


def pagewalk():
    # Region 1 (4 pages) starts at 0xa000 with hi=0x24: a 1-page hole after 0x8000.
    long4 = ram_with([(0x1000, 8, 0x2007), (0x2000, 8, 0x3007), (0x3000, 8, 0x4007),
                      (0x4008, 8, 0xA007), (0x4010, 8, 0x5007)])
    long5 = ram_with([(0x1000, 8, 0x2007), (0x2000, 8, 0x3007), (0x3000, 8, 0x4007),
                      (0x4000, 8, 0x5007), (0x5008, 8, 0x6007)])
    gib = ram_with([(0x1000, 8, 0x2007), (0x2000, 8, 0x87)])
    mib2 = ram_with([(0x1000, 8, 0x2007), (0x2000, 8, 0x3007), (0x3000, 8, 0x87)])
    pae = ram_with([(0x1000, 8, 0x2001), (0x2000, 8, 0x3007), (0x3008, 8, 0xA007),
                    (0x3010, 8, 0x5005)])
    bit32 = ram_with([(0x1000, 4, 0x2007), (0x2004, 4, 0xA007), (0x2008, 4, 0x5007)])
    pse = ram_with([(0x1000, 4, 0x87)])
    return {
        "off": pagewalk_input(0, 0, 0, 0x7F00, 0x300, b""),
        "4-level": pagewalk_input(5, 3, 0x1000, 0x1800, 0x1000, long4),
        "5-level": pagewalk_input(6, 1, 0x1000, 0x1010, 0x20, long5),
        "1g-page": pagewalk_input(5, 7, 0x1000, 0x1234, 0x100, gib),
        "2m-page": pagewalk_input(5, 2, 0x1000, 0x6FF0, 0x40, mib2),
        "pae": pagewalk_input(4, 1, 0x1000, 0x1F00, 0x200, pae),
        "32-bit": pagewalk_input(2, 3, 0x1000, 0x1FFF, 0x1002, bit32),
        "pse-4m": pagewalk_input(3, 0, 0x1000, 0x3000, 0x10, pse),
        "raw-regs": pagewalk_input(7, 0, 0x1000, 0x1000, 8, q(0x80010001) + q(0x20) +
                                   q(0x500) + long4, gpa1=0x10),
    }


def vpmu_amd():
    """fuzz_vpmu_amd.c: version, nr_gp, then ops (1 = WRMSR msr-index value)."""
    wr_ctl = bytes([1, 4]) + q(0xFFFFFFFFFFFFFFFF)          # PERF_CTL0 all ones
    count = bytes([2, 1, 0x10, 0, 0, 0])                     # 16 instructions at CPL0
    return {
        "v2": bytes([2, 6]) + wr_ctl + count,
        "v1-core": bytes([1, 6]) + wr_ctl + count,
        "v1-legacy": bytes([1, 4, 1, 0]) + q(0x4300C0) + count,
    }


def main():
    for name, seeds in (("multiboot", multiboot()), ("linux", linux()), ("vpmu_msr", vpmu()),
                        ("vpmu_amd", vpmu_amd()), ("pagewalk", pagewalk())):
        d = os.path.join("fuzz", "corpus", name)
        os.makedirs(d, exist_ok=True)
        for seed, data in seeds.items():
            with open(os.path.join(d, seed), "wb") as f:
                f.write(data)


if __name__ == "__main__":
    main()
