/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The MC146818 real-time clock and CMOS RAM at 0x70/0x71, as the PC has
 * it: an index port (bit 7 is the NMI mask, ignored) and a data port. The
 * time registers read the host's UTC time in the format register B selects
 * (BCD or binary, 12- or 24-hour); register A never shows an update in
 * progress and register D reports valid RAM and time, so Linux reads the
 * clock at boot without waiting. Writes to the time registers are ignored:
 * the guest's clock is the host's. The other CMOS bytes are plain RAM.
 */
#include <pthread.h>
#include <stdbool.h>
#include <time.h>

#include "dev/devices.h"
#include "machine/vm.h"

#define RTC_INDEX_PORT	0x70
#define RTC_LEN		2

#define RTC_SECONDS	0x00
#define RTC_MINUTES	0x02
#define RTC_HOURS	0x04
#define RTC_WEEKDAY	0x06
#define RTC_DAY		0x07
#define RTC_MONTH	0x08
#define RTC_YEAR	0x09
#define RTC_REG_A	0x0a
#define RTC_REG_B	0x0b
#define RTC_REG_C	0x0c
#define RTC_REG_D	0x0d
#define RTC_CENTURY	0x32	/* where the PC keeps it (the FADT's CENTURY 0 means unknown) */

#define RTC_A_32KHZ	0x26	/* divider 32.768 kHz, 1024 Hz rate; UIP clear */
#define RTC_B_24H	0x02
#define RTC_B_BINARY	0x04
#define RTC_D_VRT	0x80

struct rtc {
	pthread_mutex_t lock;
	uint8_t index;
	uint8_t cmos[128];
};

static struct rtc rtc_state = { .lock = PTHREAD_MUTEX_INITIALIZER };

static uint8_t rtc_encode(const struct rtc *rtc, unsigned int v)
{
	return rtc->cmos[RTC_REG_B] & RTC_B_BINARY ? (uint8_t)v : (uint8_t)((v / 10) << 4 | v % 10);
}

static uint8_t rtc_hours(const struct rtc *rtc, unsigned int h)
{
	unsigned int h12;

	if (rtc->cmos[RTC_REG_B] & RTC_B_24H)
		return rtc_encode(rtc, h);
	h12 = h % 12 ? h % 12 : 12;
	return (uint8_t)(rtc_encode(rtc, h12) | (h >= 12 ? 0x80 : 0));	/* bit 7: PM */
}

static uint8_t rtc_read(const struct rtc *rtc, uint8_t index)
{
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	switch (index) {
	case RTC_SECONDS:	return rtc_encode(rtc, (unsigned int)tm.tm_sec);
	case RTC_MINUTES:	return rtc_encode(rtc, (unsigned int)tm.tm_min);
	case RTC_HOURS:		return rtc_hours(rtc, (unsigned int)tm.tm_hour);
	case RTC_WEEKDAY:	return rtc_encode(rtc, (unsigned int)tm.tm_wday + 1);
	case RTC_DAY:		return rtc_encode(rtc, (unsigned int)tm.tm_mday);
	case RTC_MONTH:		return rtc_encode(rtc, (unsigned int)tm.tm_mon + 1);
	case RTC_YEAR:		return rtc_encode(rtc, (unsigned int)tm.tm_year % 100);
	case RTC_CENTURY:	return rtc_encode(rtc, (unsigned int)(tm.tm_year + 1900) / 100);
	case RTC_REG_A:		return RTC_A_32KHZ;
	case RTC_REG_C:		return 0;	/* no interrupt flags: no alarm, no periodic IRQ */
	case RTC_REG_D:		return RTC_D_VRT;
	default:		return rtc->cmos[index];
	}
}

static bool rtc_is_time(uint8_t index)
{
	return index <= RTC_YEAR || index == RTC_REG_A || index == RTC_REG_C ||
	       index == RTC_REG_D || index == RTC_CENTURY;
}

static void rtc_io(struct vcpu *vcpu, void *opaque, uint16_t offset, bool is_write,
		   uint8_t *data, unsigned int size)
{
	struct rtc *rtc = opaque;
	uint8_t v = (uint8_t)pio_get(data, size);

	(void)vcpu;
	pthread_mutex_lock(&rtc->lock);
	if (offset == 0) {
		if (is_write)
			rtc->index = v & 0x7f;
		else
			pio_put(data, size, 0xffffffff);	/* the index port is write-only */
	} else if (is_write) {
		if (!rtc_is_time(rtc->index))
			rtc->cmos[rtc->index] = v;
	} else {
		pio_put(data, size, rtc_read(rtc, rtc->index));
	}
	pthread_mutex_unlock(&rtc->lock);
}

int rtc_init(struct vm *vm)
{
	struct pio_device dev = {
		.name = "rtc", .base = RTC_INDEX_PORT, .len = RTC_LEN, .io = rtc_io,
		.opaque = &rtc_state,
	};

	pthread_mutex_lock(&rtc_state.lock);
	rtc_state.index = 0;
	for (unsigned int i = 0; i < sizeof(rtc_state.cmos); i++)
		rtc_state.cmos[i] = 0;
	rtc_state.cmos[RTC_REG_B] = RTC_B_24H;
	pthread_mutex_unlock(&rtc_state.lock);
	return pio_register(vm, &dev);
}
