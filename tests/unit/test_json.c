// SPDX-License-Identifier: GPL-2.0
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json_print.h"
#include "lib/units.h"
#include "tests/unit/test.h"

/* Everything printed between cap_start() and cap_end() lands in a string. */
static struct {
	FILE *f;
	char *buf;
	size_t len;
} cap;

static void cap_start(bool json, bool pretty)
{
	free(cap.buf);
	cap.buf = NULL;
	cap.f = open_memstream(&cap.buf, &cap.len);
	out_start(cap.f, json, pretty);
}

static const char *cap_end(void)
{
	out_end();
	fclose(cap.f);
	cap.f = NULL;
	return cap.buf;
}

/* What "tc qdisc show" printed for the two qdiscs of a test machine. */
static void emit_tc_qdiscs(void)
{
	static const unsigned int priomap[] = { 1, 2, 2, 2, 1, 2, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1 };
	char b[UNITS_BUF];
	size_t i;

	open_json_array(PRINT_JSON, NULL);

	open_json_object(NULL);
	print_string(PRINT_ANY, "kind", "qdisc %s ", "noqueue");
	print_string(PRINT_ANY, "handle", "%s ", sprint_handle(0, b, sizeof(b)));
	print_string(PRINT_ANY, "dev", "dev %s ", "lo");
	print_bool(PRINT_ANY, "root", "root ", true);
	print_uint(PRINT_ANY, "refcnt", "refcnt %llu ", 2);
	open_json_object("options");
	close_json_object();
	close_json_object();
	print_nl();

	open_json_object(NULL);
	print_string(PRINT_ANY, "kind", "qdisc %s ", "pfifo_fast");
	print_string(PRINT_ANY, "handle", "%s ", sprint_handle(0, b, sizeof(b)));
	print_string(PRINT_ANY, "dev", "dev %s ", "eth0");
	print_bool(PRINT_ANY, "root", "root ", true);
	print_uint(PRINT_ANY, "refcnt", "refcnt %llu ", 2);
	open_json_object("options");
	print_uint(PRINT_ANY, "bands", "bands %llu ", 3);
	print_text("priomap ");
	open_json_array(PRINT_ANY, "priomap");
	for (i = 0; i < sizeof(priomap) / sizeof(priomap[0]); i++)
		print_uint(PRINT_ANY, NULL, "%llu ", priomap[i]);
	close_json_array(PRINT_ANY, "");
	print_bool(PRINT_JSON, "multiqueue", NULL, false);
	close_json_object();
	close_json_object();
	print_nl();

	close_json_array(PRINT_JSON, NULL);
}

/* Byte-for-byte what iproute2-6.1 printed for the same two qdiscs. */
static void test_matches_tc(void)
{
	cap_start(false, false);
	emit_tc_qdiscs();
	CHECK_STR(cap_end(), "qdisc noqueue 0: dev lo root refcnt 2 \n"
			     "qdisc pfifo_fast 0: dev eth0 root refcnt 2 bands 3 "
			     "priomap 1 2 2 2 1 2 0 0 1 1 1 1 1 1 1 1 \n");

	cap_start(true, false);
	emit_tc_qdiscs();
	CHECK_STR(cap_end(), "[{\"kind\":\"noqueue\",\"handle\":\"0:\",\"dev\":\"lo\","
			     "\"root\":true,\"refcnt\":2,\"options\":{}},"
			     "{\"kind\":\"pfifo_fast\",\"handle\":\"0:\",\"dev\":\"eth0\","
			     "\"root\":true,\"refcnt\":2,\"options\":{\"bands\":3,"
			     "\"priomap\":[1,2,2,2,1,2,0,0,1,1,1,1,1,1,1,1],"
			     "\"multiqueue\":false}}]\n");

	cap_start(true, true);
	emit_tc_qdiscs();
	CHECK_STR(cap_end(), "[ {\n"
			     "        \"kind\": \"noqueue\",\n"
			     "        \"handle\": \"0:\",\n"
			     "        \"dev\": \"lo\",\n"
			     "        \"root\": true,\n"
			     "        \"refcnt\": 2,\n"
			     "        \"options\": {}\n"
			     "    },{\n"
			     "        \"kind\": \"pfifo_fast\",\n"
			     "        \"handle\": \"0:\",\n"
			     "        \"dev\": \"eth0\",\n"
			     "        \"root\": true,\n"
			     "        \"refcnt\": 2,\n"
			     "        \"options\": {\n"
			     "            \"bands\": 3,\n"
			     "            \"priomap\": [ 1,2,2,2,1,2,0,0,1,1,1,1,1,1,1,1 ],\n"
			     "            \"multiqueue\": false\n"
			     "        }\n"
			     "    } ]\n");
}

/* An fq qdisc with its defaults, the way a kind's printer would do it. */
static void emit_fq(void)
{
	char b[UNITS_BUF];

	open_json_object(NULL);
	print_string(PRINT_ANY, "kind", "qdisc %s ", "fq");
	print_string(PRINT_ANY, "handle", "%s ", sprint_handle(0x80010000, b, sizeof(b)));
	print_bool(PRINT_ANY, "root", "root ", true);
	print_uint(PRINT_ANY, "refcnt", "refcnt %llu ", 2);
	open_json_object("options");
	print_uint(PRINT_ANY, "limit", "limit %llup ", 10000);
	print_uint(PRINT_ANY, "flow_limit", "flow_limit %llup ", 100);
	print_uint(PRINT_ANY, "buckets", "buckets %llu ", 1024);
	print_uint(PRINT_ANY, "orphan_mask", "orphan_mask %llu ", 1023);
	print_uint(PRINT_JSON, "quantum", NULL, 3028);
	print_string(PRINT_FP, NULL, "quantum %s ", sprint_size(3028, b, sizeof(b)));
	print_uint(PRINT_JSON, "initial_quantum", NULL, 15140);
	print_string(PRINT_FP, NULL, "initial_quantum %s ", sprint_size(15140, b, sizeof(b)));
	print_uint(PRINT_JSON, "low_rate_threshold", NULL, 68750);
	print_string(PRINT_FP, NULL, "low_rate_threshold %s ", sprint_rate(68750, b, sizeof(b)));
	print_uint(PRINT_JSON, "refill_delay", NULL, 40000);
	print_string(PRINT_FP, NULL, "refill_delay %s ", sprint_time(40000000, b, sizeof(b)));
	print_uint(PRINT_JSON, "timer_slack", NULL, 10000);
	print_string(PRINT_FP, NULL, "timer_slack %s ", sprint_time(10000, b, sizeof(b)));
	print_uint(PRINT_JSON, "horizon", NULL, 10000000000ULL);
	print_string(PRINT_FP, NULL, "horizon %s ", sprint_time(10000000000ULL, b, sizeof(b)));
	print_bool(PRINT_ANY, "horizon_drop", "horizon_drop ", true);
	close_json_object();
	close_json_object();
}

static void test_fq_defaults(void)
{
	cap_start(false, false);
	emit_fq();
	CHECK_STR(cap_end(), "qdisc fq 8001: root refcnt 2 limit 10000p flow_limit 100p "
			     "buckets 1024 orphan_mask 1023 quantum 3028b "
			     "initial_quantum 15140b low_rate_threshold 550Kbit "
			     "refill_delay 40ms timer_slack 10us horizon 10s "
			     "horizon_drop ");

	cap_start(true, false);
	emit_fq();
	CHECK_STR(cap_end(), "{\"kind\":\"fq\",\"handle\":\"8001:\",\"root\":true,"
			     "\"refcnt\":2,\"options\":{\"limit\":10000,"
			     "\"flow_limit\":100,\"buckets\":1024,\"orphan_mask\":1023,"
			     "\"quantum\":3028,\"initial_quantum\":15140,"
			     "\"low_rate_threshold\":68750,\"refill_delay\":40000,"
			     "\"timer_slack\":10000,\"horizon\":10000000000,"
			     "\"horizon_drop\":true}}\n");
}

static void test_escaping(void)
{
	cap_start(true, false);
	open_json_object(NULL);
	print_string(PRINT_JSON, "q", NULL, "say \"hi\"");
	print_string(PRINT_JSON, "bs", NULL, "a\\b");
	print_string(PRINT_JSON, "ws", NULL, "\t\n\r\b\f");
	print_string(PRINT_JSON, "ctl", NULL, "\x01\x1f\x7f");
	print_string(PRINT_JSON, "utf8", NULL, "h\xc3\xa9llo \xe2\x82\xac");
	print_string(PRINT_JSON, "slash", NULL, "/'");
	print_string(PRINT_JSON, "empty", NULL, "");
	print_string(PRINT_JSON, "k\"e\\y\n", NULL, "v");
	close_json_object();
	CHECK_STR(cap_end(), "{\"q\":\"say \\\"hi\\\"\",\"bs\":\"a\\\\b\","
			     "\"ws\":\"\\t\\n\\r\\b\\f\",\"ctl\":\"\\u0001\\u001f\x7f\","
			     "\"utf8\":\"h\xc3\xa9llo \xe2\x82\xac\",\"slash\":\"/'\","
			     "\"empty\":\"\",\"k\\\"e\\\\y\\n\":\"v\"}\n");

	/* JSON text is UTF-8: each byte that is not part of a valid character is U+FFFD. */
	cap_start(true, false);
	open_json_object(NULL);
	print_string(PRINT_JSON, "bad", NULL,
		     "a\xff\xc0\xaf"
		     "b\xed\xa0\x80\xf4\x90\x80\x80\xe2\x82");
	print_string(PRINT_JSON, "ok", NULL, "\xf0\x9f\x98\x80\xef\xbf\xbd");
	close_json_object();
	CHECK_STR(cap_end(), "{\"bad\":\"a\\ufffd\\ufffd\\ufffdb\\ufffd\\ufffd\\ufffd"
			     "\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\","
			     "\"ok\":\"\xf0\x9f\x98\x80\xef\xbf\xbd\"}\n");
	CHECK_INT(utf8_len("\xc3\xa9"), 2);
	CHECK_INT(utf8_len("\xe0\x9f\x80"), 0); /* overlong */
	CHECK_INT(utf8_len("\xf4\x8f\xbf\xbf"), 4);
	CHECK_INT(utf8_len("\x80"), 0);

	/* text mode prints the raw string */
	cap_start(false, false);
	print_string(PRINT_ANY, "q", "<%s>", "a\"b\\c\td");
	CHECK_STR(cap_end(), "<a\"b\\c\td>");
}

static void test_values_json(void)
{
	cap_start(true, false);
	open_json_object(NULL);
	print_uint(PRINT_JSON, "zero", NULL, 0);
	print_uint(PRINT_JSON, "max", "%llu", UINT64_MAX);
	print_int(PRINT_JSON, "neg", NULL, -5);
	print_int(PRINT_JSON, "min", NULL, INT64_MIN);
	print_int(PRINT_JSON, "imax", NULL, INT64_MAX);
	print_bool(PRINT_JSON, "t", NULL, true);
	print_bool(PRINT_JSON, "f", NULL, false);
	print_null(PRINT_JSON, "n", "%s", "ignored");
	print_string(PRINT_JSON, "s", NULL, NULL);
	close_json_object();
	CHECK_STR(cap_end(), "{\"zero\":0,\"max\":18446744073709551615,\"neg\":-5,"
			     "\"min\":-9223372036854775808,"
			     "\"imax\":9223372036854775807,\"t\":true,\"f\":false,"
			     "\"n\":null,\"s\":null}\n");

	/* arrays hold bare values; a key there is dropped, not emitted */
	cap_start(true, false);
	open_json_array(PRINT_JSON, NULL);
	print_uint(PRINT_ANY, NULL, "%llu", 1);
	print_string(PRINT_ANY, "ignored", "%s", "two");
	print_bool(PRINT_ANY, NULL, "%s", true);
	print_null(PRINT_ANY, NULL, "%s", "-");
	print_int(PRINT_ANY, NULL, "%lld", -3);
	open_json_object(NULL);
	close_json_object();
	open_json_array(PRINT_JSON, NULL);
	close_json_array(PRINT_JSON, NULL);
	close_json_array(PRINT_JSON, NULL);
	CHECK_STR(cap_end(), "[1,\"two\",true,null,-3,{},[]]\n");

	cap_start(true, true);
	open_json_array(PRINT_JSON, NULL);
	print_uint(PRINT_ANY, NULL, "%llu", 1);
	print_string(PRINT_ANY, NULL, "%s", "two");
	open_json_object(NULL);
	print_uint(PRINT_ANY, "a", "%llu", 1);
	open_json_array(PRINT_ANY, "e");
	close_json_array(PRINT_ANY, NULL);
	open_json_array(PRINT_ANY, "l");
	open_json_object(NULL);
	print_uint(PRINT_ANY, "x", "%llu", 1);
	close_json_object();
	open_json_object(NULL);
	close_json_object();
	close_json_array(PRINT_ANY, NULL);
	close_json_object();
	close_json_array(PRINT_JSON, NULL);
	CHECK_STR(cap_end(), "[ 1,\"two\",{\n"
			     "        \"a\": 1,\n"
			     "        \"e\": [ ],\n"
			     "        \"l\": [ {\n"
			     "                \"x\": 1\n"
			     "            },{} ]\n"
			     "    } ]\n");
}

static void test_modes(void)
{
	CHECK(!out_is_json());

	/* text: FP and ANY print, JSON-only things do not */
	cap_start(false, false);
	CHECK(!out_is_json());
	open_json_object("o");
	open_json_array(PRINT_ANY, "a");
	print_uint(PRINT_FP, "k", "fp=%llu ", 1);
	print_uint(PRINT_ANY, "k", "any=%llu ", 2);
	print_uint(PRINT_JSON, "k", "json=%llu ", 3);
	print_string(PRINT_FP, NULL, NULL, "nofmt");
	print_string(PRINT_ANY, "k", NULL, "nofmt");
	close_json_array(PRINT_ANY, "] ");
	close_json_array(PRINT_FP, "fp ");
	close_json_array(PRINT_JSON, "json ");
	close_json_array(PRINT_ANY, NULL);
	close_json_object();
	print_nl();
	print_text("%s=%d", "t", 7);
	CHECK_STR(cap_end(), "fp=1 any=2 ] fp \nt=7");

	/* JSON: JSON and ANY print; FP, print_nl and print_text do not */
	cap_start(true, false);
	CHECK(out_is_json());
	open_json_object(NULL);
	print_uint(PRINT_FP, "fp", "fp=%llu ", 1);
	print_uint(PRINT_ANY, "any", "any=%llu ", 2);
	print_uint(PRINT_JSON, "json", "json=%llu ", 3);
	open_json_array(PRINT_FP, "fparr");
	close_json_array(PRINT_FP, "x");
	print_nl();
	print_text("text %d", 1);
	close_json_object();
	CHECK_STR(cap_end(), "{\"any\":2,\"json\":3}\n");
	CHECK(!out_is_json());

	/* JSON with no data prints nothing at all, not even a newline */
	cap_start(true, false);
	print_uint(PRINT_FP, "fp", "%llu", 1);
	print_nl();
	CHECK_STR(cap_end(), "");

	cap_start(true, true);
	CHECK_STR(cap_end(), "");

	cap_start(false, false);
	CHECK_STR(cap_end(), "");
}

static void test_text_formats(void)
{
	/* Each format's conversion is of the value's type: -Wformat checks them. */
	cap_start(false, false);
	print_uint(PRINT_FP, NULL, "%llu|", UINT64_MAX);
	print_uint(PRINT_FP, NULL, "%llx|", 0xdeadbeefcafeULL);
	print_uint(PRINT_FP, NULL, "%#llx|", 255);
	print_uint(PRINT_FP, NULL, "%llX|", 255);
	print_uint(PRINT_FP, NULL, "%llo|", 8);
	print_uint(PRINT_FP, NULL, "%5llu|", 42);
	print_uint(PRINT_FP, NULL, "%-5llu|", 42);
	print_uint(PRINT_FP, NULL, "%05llu|", 42);
	print_uint(PRINT_FP, NULL, "100%%|", 1);
	print_uint(PRINT_FP, NULL, "%llu%%|", 50);
	print_uint(PRINT_FP, NULL, "%%%llu|", 50);
	CHECK_STR(cap_end(), "18446744073709551615|deadbeefcafe|0xff|FF|10|"
			     "   42|42   |00042|100%|50%|%50|");

	cap_start(false, false);
	print_int(PRINT_FP, NULL, "%lld|", -1);
	print_int(PRINT_FP, NULL, "%lli|", INT64_MIN);
	print_int(PRINT_FP, NULL, "%lld|", INT64_MAX);
	print_int(PRINT_FP, NULL, "%+lld|", 5);
	print_int(PRINT_FP, NULL, "%4lld|", -7);
	CHECK_STR(cap_end(), "-1|-9223372036854775808|9223372036854775807|+5|  -7|");

	cap_start(false, false);
	print_string(PRINT_FP, NULL, "%s|", "a");
	print_string(PRINT_FP, NULL, "%-4s|", "a");
	print_string(PRINT_FP, NULL, "%4s|", "a");
	print_string(PRINT_FP, NULL, "%.2s|", "abcdef");
	print_string(PRINT_FP, NULL, "<%s>", NULL);
	print_string(PRINT_FP, NULL, "plain|", "unused");
	print_string(PRINT_FP, NULL, "50%%|", "unused");
	print_bool(PRINT_FP, NULL, "%s|", true);
	print_bool(PRINT_FP, NULL, "%s|", false);
	print_bool(PRINT_FP, NULL, "nopacing|", false);
	print_null(PRINT_FP, NULL, "%s|", "none");
	print_null(PRINT_FP, NULL, "<%s>", NULL);
	CHECK_STR(cap_end(), "a|a   |   a|ab|<>plain|50%|true|false|nopacing|"
			     "none|<>");
}

/* A number in tc's units: the number in JSON, tc's text as the format's %s. */
static void test_unit_helpers(void)
{
	cap_start(false, false);
	print_size(PRINT_ANY, "backlog", "backlog %s ", 1500);
	print_rate(PRINT_ANY, "rate", "rate %s ", 1250000);
	print_time(PRINT_ANY, "delay", "delay %s|", 40000000);
	print_size(PRINT_JSON, "json_only", "never %s", 1);
	CHECK_STR(cap_end(), "backlog 1500b rate 10Mbit delay 40ms|");

	cap_start(true, false);
	open_json_object(NULL);
	print_size(PRINT_ANY, "backlog", "backlog %s ", 1500);
	print_rate(PRINT_ANY, "rate", "rate %s ", 1250000);
	print_time(PRINT_ANY, "delay", NULL, 40000000);
	print_size(PRINT_FP, "text_only", "%s", 1);
	close_json_object();
	CHECK_STR(cap_end(), "{\"backlog\":1500,\"rate\":1250000,\"delay\":40000000}\n");
}

/* Beyond OUT_MAX_DEPTH containers are dropped, and so is their content. */
static void test_depth(void)
{
	char want[256];
	int i;

	cap_start(true, false);
	for (i = 0; i < OUT_MAX_DEPTH + 3; i++)
		open_json_array(PRINT_JSON, NULL);
	print_uint(PRINT_JSON, NULL, NULL, 7);
	open_json_object(NULL);
	print_uint(PRINT_JSON, "k", NULL, 8);
	close_json_object();
	for (i = 0; i < 3; i++)
		close_json_array(PRINT_JSON, NULL);
	print_uint(PRINT_JSON, NULL, NULL, 9);
	for (i = 0; i < OUT_MAX_DEPTH; i++)
		close_json_array(PRINT_JSON, NULL);
	memset(want, 0, sizeof(want));
	memset(want, '[', OUT_MAX_DEPTH);
	strcat(want, "9");
	memset(want + strlen(want), ']', OUT_MAX_DEPTH);
	strcat(want, "\n");
	CHECK_STR(cap_end(), want);

	/* exactly OUT_MAX_DEPTH is fine */
	cap_start(true, false);
	for (i = 0; i < OUT_MAX_DEPTH - 1; i++)
		open_json_array(PRINT_JSON, NULL);
	open_json_object(NULL);
	print_uint(PRINT_JSON, "k", NULL, 1);
	close_json_object();
	for (i = 0; i < OUT_MAX_DEPTH - 1; i++)
		close_json_array(PRINT_JSON, NULL);
	memset(want, 0, sizeof(want));
	memset(want, '[', OUT_MAX_DEPTH - 1);
	strcat(want, "{\"k\":1}");
	memset(want + strlen(want), ']', OUT_MAX_DEPTH - 1);
	strcat(want, "\n");
	CHECK_STR(cap_end(), want);

	/* pretty indentation keeps up at depth */
	cap_start(true, true);
	open_json_object(NULL);
	open_json_object("a");
	open_json_object("b");
	print_uint(PRINT_JSON, "c", NULL, 1);
	close_json_object();
	close_json_object();
	close_json_object();
	CHECK_STR(cap_end(), "{\n"
			     "    \"a\": {\n"
			     "        \"b\": {\n"
			     "            \"c\": 1\n"
			     "        }\n"
			     "    }\n"
			     "}\n");
}

static void test_unbalanced(void)
{
	/* out_end() closes what is left open */
	cap_start(true, false);
	open_json_array(PRINT_JSON, NULL);
	open_json_object(NULL);
	print_uint(PRINT_JSON, "a", NULL, 1);
	open_json_array(PRINT_JSON, "b");
	CHECK_STR(cap_end(), "[{\"a\":1,\"b\":[]}]\n");

	cap_start(true, true);
	open_json_array(PRINT_JSON, NULL);
	open_json_object(NULL);
	print_uint(PRINT_JSON, "a", NULL, 1);
	CHECK_STR(cap_end(), "[ {\n        \"a\": 1\n    } ]\n");

	/* extra closes are ignored; a wrong kind closes the innermost */
	cap_start(true, false);
	close_json_object();
	close_json_array(PRINT_JSON, NULL);
	open_json_array(PRINT_JSON, NULL);
	print_uint(PRINT_JSON, NULL, NULL, 1);
	close_json_object();
	close_json_object();
	CHECK_STR(cap_end(), "[1]\n");

	/* top-level values are comma separated, as iproute2 does */
	cap_start(true, false);
	open_json_object(NULL);
	close_json_object();
	open_json_object(NULL);
	close_json_object();
	CHECK_STR(cap_end(), "{},{}\n");

	/* out_start() again starts over */
	cap_start(true, false);
	open_json_array(PRINT_JSON, NULL);
	out_start(cap.f, true, false);
	open_json_object(NULL);
	close_json_object();
	CHECK_STR(cap_end(), "[{}\n");
}

int main(void)
{
	test_matches_tc();
	test_fq_defaults();
	test_escaping();
	test_values_json();
	test_modes();
	test_text_formats();
	test_unit_helpers();
	test_depth();
	test_unbalanced();
	free(cap.buf);
	return test_summary("test_json");
}
