/* SPDX-License-Identifier: MIT */
/*
 * Freestanding printf engine.  Everything goes through vcbprintf(), which
 * hands each output character to a callback: the console streams it to the
 * UART, snprintf() stores it in a buffer.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <rt/printf.h>
#include <rt/string.h>

struct spec {
	bool left, zero, plus, space, alt;
	int width;
	int prec;		/* -1: none */
};

typedef void (*out_fn)(char c, void *ctx);

struct sink {
	out_fn out;
	void *ctx;
	int count;
};

static void emit(struct sink *s, char c)
{
	s->out(c, s->ctx);
	s->count++;
}

static void emit_pad(struct sink *s, char c, int n)
{
	while (n-- > 0)
		emit(s, c);
}

static void emit_str(struct sink *s, const struct spec *sp, const char *str)
{
	int len;

	if (!str)
		str = "(null)";
	len = (int)strnlen(str, sp->prec >= 0 ? (size_t)sp->prec : SIZE_MAX);
	if (!sp->left)
		emit_pad(s, ' ', sp->width - len);
	for (int i = 0; i < len; i++)
		emit(s, str[i]);
	if (sp->left)
		emit_pad(s, ' ', sp->width - len);
}

static void emit_num(struct sink *s, const struct spec *sp, uint64_t v,
		     bool neg, unsigned base, bool upper, const char *prefix)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char buf[24];
	int n = 0, plen = (int)strlen(prefix), sign, zeros, pad;
	char signc = neg ? '-' : sp->plus ? '+' : sp->space ? ' ' : 0;

	do {
		buf[n++] = digits[v % base];
		v /= base;
	} while (v);
	if (sp->prec == 0 && n == 1 && buf[0] == '0')
		n = 0;			/* "%.0d" of 0 prints nothing */
	sign = signc ? 1 : 0;
	zeros = sp->prec > n ? sp->prec - n : 0;
	pad = sp->width - (sign + plen + zeros + n);
	if (sp->zero && !sp->left && sp->prec < 0) {
		zeros += pad > 0 ? pad : 0;
		pad = 0;
	}
	if (!sp->left)
		emit_pad(s, ' ', pad);
	if (signc)
		emit(s, signc);
	while (*prefix)
		emit(s, *prefix++);
	emit_pad(s, '0', zeros);
	while (n)
		emit(s, buf[--n]);
	if (sp->left)
		emit_pad(s, ' ', pad);
}

enum length { LEN_INT, LEN_CHAR, LEN_SHORT, LEN_LONG, LEN_LLONG, LEN_SIZE };

static uint64_t arg_unsigned(va_list *ap, enum length len)
{
	switch (len) {
	case LEN_CHAR:	return (unsigned char)va_arg(*ap, unsigned int);
	case LEN_SHORT:	return (unsigned short)va_arg(*ap, unsigned int);
	case LEN_LONG:	return va_arg(*ap, unsigned long);
	case LEN_LLONG:	return va_arg(*ap, unsigned long long);
	case LEN_SIZE:	return va_arg(*ap, size_t);
	default:	return va_arg(*ap, unsigned int);
	}
}

static int64_t arg_signed(va_list *ap, enum length len)
{
	switch (len) {
	case LEN_CHAR:	return (signed char)va_arg(*ap, int);
	case LEN_SHORT:	return (short)va_arg(*ap, int);
	case LEN_LONG:	return va_arg(*ap, long);
	case LEN_LLONG:	return va_arg(*ap, long long);
	case LEN_SIZE:	return va_arg(*ap, long);	/* ssize_t */
	default:	return va_arg(*ap, int);
	}
}

int vcbprintf(out_fn out, void *ctx, const char *fmt, va_list ap_in)
{
	struct sink s = { out, ctx, 0 };
	va_list ap;

	va_copy(ap, ap_in);
	for (; *fmt; fmt++) {
		struct spec sp = { .prec = -1 };
		enum length len = LEN_INT;
		uint64_t u;
		int64_t d;

		if (*fmt != '%') {
			emit(&s, *fmt);
			continue;
		}
		for (;;) {		/* flags */
			char f = *++fmt;

			if (f == '-')
				sp.left = true;
			else if (f == '0')
				sp.zero = true;
			else if (f == '+')
				sp.plus = true;
			else if (f == ' ')
				sp.space = true;
			else if (f == '#')
				sp.alt = true;
			else
				break;
		}
		if (*fmt == '*') {
			sp.width = va_arg(ap, int);
			if (sp.width < 0) {
				sp.left = true;
				sp.width = -sp.width;
			}
			fmt++;
		}
		while (*fmt >= '0' && *fmt <= '9')
			sp.width = sp.width * 10 + (*fmt++ - '0');
		if (*fmt == '.') {
			sp.prec = 0;
			if (*++fmt == '*') {
				sp.prec = va_arg(ap, int);
				fmt++;
			}
			while (*fmt >= '0' && *fmt <= '9')
				sp.prec = sp.prec * 10 + (*fmt++ - '0');
		}
		switch (*fmt) {		/* length */
		case 'h':
			len = fmt[1] == 'h' ? (fmt++, LEN_CHAR) : LEN_SHORT;
			fmt++;
			break;
		case 'l':
			len = fmt[1] == 'l' ? (fmt++, LEN_LLONG) : LEN_LONG;
			fmt++;
			break;
		case 'z': case 't': case 'j':
			len = LEN_SIZE;
			fmt++;
			break;
		}
		switch (*fmt) {
		case 'd':
		case 'i':
			d = arg_signed(&ap, len);
			emit_num(&s, &sp, d < 0 ? -(uint64_t)d : (uint64_t)d,
				 d < 0, 10, false, "");
			break;
		case 'u':
			emit_num(&s, &sp, arg_unsigned(&ap, len), false, 10, false, "");
			break;
		case 'x':
		case 'X':
			u = arg_unsigned(&ap, len);
			emit_num(&s, &sp, u, false, 16, *fmt == 'X',
				 sp.alt && u ? (*fmt == 'X' ? "0X" : "0x") : "");
			break;
		case 'o':
			emit_num(&s, &sp, arg_unsigned(&ap, len), false, 8, false,
				 sp.alt ? "0" : "");
			break;
		case 'p':
			emit_num(&s, &sp, (uintptr_t)va_arg(ap, void *), false,
				 16, false, "0x");
			break;
		case 'c': {
			char c[2] = { (char)va_arg(ap, int), 0 };
			struct spec cs = sp;

			cs.prec = -1;
			if (!c[0]) {	/* a NUL char still counts */
				emit_pad(&s, ' ', sp.left ? 0 : sp.width - 1);
				emit(&s, 0);
				emit_pad(&s, ' ', sp.left ? sp.width - 1 : 0);
			} else {
				emit_str(&s, &cs, c);
			}
			break;
		}
		case 's':
			emit_str(&s, &sp, va_arg(ap, const char *));
			break;
		case '%':
			emit(&s, '%');
			break;
		case '\0':		/* lone '%' at the end */
			fmt--;
			break;
		default:		/* unknown: print it as is */
			emit(&s, '%');
			emit(&s, *fmt);
			break;
		}
	}
	va_end(ap);
	return s.count;
}

struct bufctx {
	char *buf;
	size_t size, pos;
};

static void buf_out(char c, void *ctx)
{
	struct bufctx *b = ctx;

	if (b->pos + 1 < b->size)
		b->buf[b->pos] = c;
	b->pos++;
}

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct bufctx b = { buf, size, 0 };
	int n = vcbprintf(buf_out, &b, fmt, ap);

	if (size)
		buf[b.pos < size ? b.pos : size - 1] = '\0';
	return n;
}

int snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}
