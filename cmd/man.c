// SPDX-License-Identifier: GPL-2.0
/*
 * `qdiscctl __man`: the man page, troff, from the tables help reads (the
 * commands, argp's global options, the kinds' descriptors, the sysctls);
 * a kind's part is the describer's troff back end (kinds/describe.h),
 * the walk help KIND renders as text.
 * `make man` writes it to doc/qdiscctl.8, which is committed so that
 * installing needs no build of it; tests/host/agreement.sh regenerates it
 * and fails when the committed page has drifted from the binary.
 *
 * No date in .TH: the page must be the same bytes on every regeneration.
 */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "kinds/describe.h"
#include "lib/common.h"
#include "sysctl/sysctl.h"

/*
 * Text as troff takes it: backslashes and minus signs escaped (so options
 * copy and paste as ASCII '-'), and a control character at a line's start
 * defused. Newlines in the text become line breaks.
 */
static void esc(const char *s)
{
	bool bol = true;

	for (; *s; s++) {
		if (bol && (*s == '.' || *s == '\''))
			fputs("\\&", stdout);
		bol = false;
		switch (*s) {
		case '\\':
			fputs("\\e", stdout);
			break;
		case '-':
			fputs("\\-", stdout);
			break;
		case '\n':
			fputs("\n.br\n", stdout);
			bol = true;
			break;
		default:
			putchar(*s);
		}
	}
}

static void line(const char *s)
{
	if (!*s)
		return; /* an empty line is vertical space in troff */
	esc(s);
	putchar('\n');
}

/*
 * Help text is wrapped for a terminal: let troff refill its lines, keep
 * indented lines (tables of figures) as they are, a blank line a break.
 */
static void block(const char *text)
{
	bool nofill = false;
	char buf[1024];

	while (*text) {
		size_t n = strcspn(text, "\n");

		snprintf(buf, sizeof(buf), "%.*s", (int)n, text);
		text += n + (text[n] == '\n');
		if (!buf[0]) {
			printf(nofill ? ".fi\n.sp\n" : ".sp\n");
			nofill = false;
			continue;
		}
		if ((buf[0] == ' ') != nofill) {
			nofill = !nofill;
			printf(nofill ? ".nf\n" : ".fi\n");
		}
		line(buf);
	}
	if (nofill)
		printf(".fi\n");
}

static void options(void)
{
	printf(".SH OPTIONS\n");
	for (const struct argp_option *o = qd_global_options; o->name || o->key; o++) {
		printf(".TP\n");
		if (o->key > ' ' && o->key < 127)
			printf("\\fB\\-%c\\fR, ", o->key);
		printf("\\fB\\-\\-%s\\fR", o->name);
		if (o->arg)
			printf(" \\fI%s\\fR", o->arg);
		printf("\n");
		line(o->doc);
	}
	printf(".TP\n\\fB\\-V\\fR, \\fB\\-\\-version\\fR\nPrint qdiscctl's version and "
	       "libbpf's.\n");
	printf(".TP\n\\fB\\-?\\fR, \\fB\\-\\-help\\fR, \\fB\\-\\-usage\\fR\nList the options.\n");
}

static void commands(void)
{
	printf(".SH COMMANDS\n");
	for (const struct qd_cmd *const *c = qd_cmds(); *c; c++) {
		if ((*c)->hidden)
			continue;
		printf(".TP\n\\fB%s\\fR ", (*c)->name);
		line((*c)->args);
		if ((*c)->alias)
			printf("(also \\fB%s\\fR) ", (*c)->alias);
		esc((*c)->summary);
		printf(".\n");
		if ((*c)->help) {
			printf(".br\n");
			block((*c)->help);
		}
	}
}

/* --- the kinds: the describer's troff back end ---------------------------- */

static void troff_kind(const struct qd_kind *k, const char *syn)
{
	printf(".SS %s\n", k->name);
	esc(k->summary);
	printf(". The kernel and tc show it as \\fB%s\\fR.\n", k->id);
	printf(".PP\n.B qdiscctl add dev\n.I DEV\n.RB ( root \" | parent\"\n.IR ID )\n"
	       ".RB [ handle\n.IR H ]\n");
	line(syn);
}

static void troff_option(const struct qd_opt *o, const char *label, const char *dflt)
{
	printf(".TP\n.B ");
	line(label);
	esc(o->help);
	if (dflt)
		printf(" (default \\fB%s\\fR).\n", dflt);
	else
		printf(" (required).\n");
}

static void troff_field(const struct qd_opt *o, const struct qd_opt *f, const char *label,
			const char *dflt)
{
	char l[160];

	snprintf(l, sizeof(l), "%s %s", o->name, label);
	printf(".TP\n.B ");
	line(l);
	esc(f->help);
	printf(" (default \\fB%s\\fR).\n", dflt);
}

static void troff_list_begin(enum qd_desc_list what, const struct qd_kind *k)
{
	if (what == QD_DESC_STATS) {
		printf(".PP\nStatistics (\\fBshow \\-s\\fR; JSON keys):");
	} else if (what == QD_DESC_TABLE) {
		printf(".PP\nPer-class statistics (\\fBshow \\-s\\fR; JSON array \\fB%s\\fR, ",
		       k->table->name);
		esc(k->table->help);
		printf("):");
	} else {
		printf(".PP\nFlow table (\\fBshow dev\\fR \\fIDEV\\fR \\fBflows\\fR "
		       "[\\fBsort\\fR \\fICOLUMN\\fR]) columns:");
	}
}

static void troff_list_item(const char *name, bool first)
{
	printf("%s\\fB%s\\fR", first ? " " : ", ", name);
}

static void troff_list_end(enum qd_desc_list what)
{
	(void)what;
	printf(".\n");
}

static void troff_caps(const struct qd_kind *k)
{
	printf(".PP\nCapacities, fixed when the kind is registered (\\fB\\-C\\fR "
	       "\\fINAME\\fB=\\fIN\\fR):");
	for (int i = 0; i < qd_kind_ncaps(k); i++) {
		const struct qd_cap *c = qd_kind_cap(k, i);

		printf("%s\\fB%s\\fR", i ? ", " : " ", c->name);
		if (c->def)
			printf(" (default %u)", c->def);
	}
	printf(".\n");
}

static const struct qd_describer troff_describer = {
	.kind = troff_kind,
	.option = troff_option,
	.field = troff_field,
	.list_begin = troff_list_begin,
	.list_item = troff_list_item,
	.list_end = troff_list_end,
	.caps = troff_caps,
	.caps_first = true,
};

/* The meanings are the README's table; the numbers come from enum qd_exit. */
static const struct {
	int code;
	const char *meaning;
} exits[] = {
	{ QD_EXIT_OK, "success" },
	{ QD_EXIT_FAIL, "local failure: no such device or namespace, not root, BPF load or "
			"bpffs error; change on a qdisc that is not qdiscctl's; show flows where "
			"no matching qdisc keeps a flow table" },
	{ QD_EXIT_KERNEL, "the kernel rejected the request (its extended-ack text is printed as "
			  "\"Error: ...\"); for change, also no qdisc at that place or one of "
			  "another kind" },
	{ QD_EXIT_UNSUPPORTED, "the kernel cannot run BPF qdiscs (Linux 6.16 or later with "
			       "CONFIG_NET_SCH_BPF=y is needed)" },
	{ QD_EXIT_USAGE, "bad command line: the message names the bad token" },
};

static const char *const examples[] = {
	"qdiscctl kinds",
	"qdiscctl help fifo",
	"qdiscctl \\-n blue add dev veth0 root fifo limit 100",
	"qdiscctl replace dev eth0 root fifo limit 50",
	"qdiscctl change dev eth0 root limit 80",
	"qdiscctl \\-s show dev eth0 flows sort backlog",
	"qdiscctl \\-s \\-j show dev eth0 | jq '.[0].drops'",
	"printf 'add dev a root fifo\\enadd dev b root fifo\\en' | qdiscctl \\-b \\-",
	"qdiscctl sysctl apply backpressure",
	NULL,
};

static int run_man(int argc, char **argv)
{
	if (argc > 1) {
		qd_err("__man: unexpected \"%s\"", qd_tok(argv[1]));
		return QD_EXIT_USAGE;
	}
	printf(".\\\" Generated by `qdiscctl __man` (make man); do not edit.\n"
	       ".TH QDISCCTL 8 \"\" \"qdiscctl %s\" \"System Administration\"\n",
	       QDISCCTL_VERSION);
	printf(".SH NAME\nqdiscctl \\- manage BPF qdiscs the way tc manages qdiscs\n");
	printf(".SH SYNOPSIS\n.B qdiscctl\n.RI [ OPTIONS ]\n.I COMMAND\n.RI [ ARGS ]\n");
	for (const struct qd_cmd *const *c = qd_cmds(); *c; c++) {
		if ((*c)->hidden)
			continue;
		printf(".br\n.B qdiscctl\n.RI [ OPTIONS ]\n.B %s\n", (*c)->name);
		line((*c)->args);
	}
	printf(".SH DESCRIPTION\n"
	       "qdiscctl carries BPF qdiscs (struct_ops Qdisc_ops, Linux 6.16 and later) "
	       "compiled in and manages them as\n.BR tc (8)\nmanages qdiscs: it registers the "
	       "BPF side on the first \\fBadd\\fR of a kind, pins it under "
	       "/sys/fs/bpf/qdiscctl, and removes it with the last instance.\n.PP\n"
	       "The grammar is tc's: keywords in any order, the first other word is the kind, "
	       "everything after it the kind's options. Commands may be abbreviated, values "
	       "never. \\fBshow\\fR lists every qdisc, qdiscctl's or not; with \\fB\\-s "
	       "\\-j\\fR it prints tc's JSON keys.\n");
	options();
	commands();
	printf(".SH KINDS\n");
	for (const struct qd_kind *const *k = qd_kinds(); *k; k++)
		qd_kind_describe_to(*k, &troff_describer);
	printf(".SH SYSCTLS\nThe names \\fBsysctl\\fR shows and sets:\n");
	for (const struct qd_sysctl *s = qd_sysctls; s->name; s++) {
		printf(".TP\n.B %s\n", s->name);
		line(s->meaning);
	}
	printf(".SH UNITS\n"
	       "Handles are hex, as tc writes them: \\fB1:\\fR, \\fBffff:1\\fR, \\fB:5\\fR, "
	       "\\fBroot\\fR.\n.PP\n"
	       "Sizes: bytes when bare or with \\fBb\\fR; \\fBk\\fR/\\fBkb\\fR, "
	       "\\fBm\\fR/\\fBmb\\fR, \\fBg\\fR/\\fBgb\\fR are 1024-based bytes; "
	       "\\fBkbit\\fR, \\fBmbit\\fR, \\fBgbit\\fR 1024-based bits.\n.PP\n"
	       "Times: microseconds when bare; \\fBs\\fR, \\fBms\\fR, \\fBus\\fR, \\fBns\\fR "
	       "(also \\fBsec\\fR, \\fBmsec\\fR, \\fBusec\\fR, \\fBnsec\\fR).\n.PP\n"
	       "Rates: bits per second when bare; \\fBkbit\\fR, \\fBmbit\\fR, \\fBgbit\\fR, "
	       "\\fBtbit\\fR (1000-based) and \\fBkibit\\fR ... (1024-based); "
	       "\\fBbps\\fR, \\fBkbps\\fR, \\fBmbps\\fR, \\fBgbps\\fR are \\fIbytes\\fR per "
	       "second, as in tc.\n");
	printf(".SH EXIT STATUS\n");
	for (size_t i = 0; i < ARRAY_SIZE(exits); i++) {
		printf(".TP\n.B %d\n", exits[i].code);
		line(exits[i].meaning);
	}
	printf(".PP\nEvery error is one line on stderr. In a batch (\\fB\\-b\\fR), a failing "
	       "line is reported as FILE:LINE, the batch stops unless \\fB\\-\\-force\\fR is "
	       "given, and the exit status is that of the first failure. A line ending in "
	       "\\e continues on the next.\n.PP\nWith \\fB\\-j\\fR errors are JSON on stdout "
	       "instead, \\fB{\"error\":\"...\"}\\fR (with \\fBerrno\\fR and \\fBerrno_name\\fR "
	       "for a kernel refusal), inside whatever output was already open; commands "
	       "without output print \\fBnull\\fR.\n");
	printf(".SH EXAMPLES\n");
	for (int i = 0; examples[i]; i++)
		printf(".PP\n.nf\n%s\n.fi\n", examples[i]);
	printf(".SH SEE ALSO\n.BR tc (8),\n.BR tc\\-fq (8),\n.BR ip\\-netns (8),\n"
	       ".BR sysctl (8)\n");
	return QD_EXIT_OK;
}

static const struct qd_cmd man_cmd = {
	.name = "__man",
	.args = "",
	.summary = "print the man page (troff)",
	.order = 1001,
	.hidden = true,
	.run = run_man,
};
QD_CMD_REGISTER(man_cmd);
