#!/bin/sh
# SPDX-License-Identifier: MIT
# One naming rule for the public API (lib/names.txt): each function's noun is listed, each
# enum's values carry its noun, each object has its end. Reads the headers only (no build).
# Last line: "names: N passed, N failed, N skipped".
set -u
exec perl -e '
use strict; use warnings;
my ($pass, $fail) = (0, 0);
sub ok { $pass++; print "ok $_[0]\n" }
sub bad { $fail++; print "FAIL $_[0]: $_[1]\n" }

my (%noun, %verb, %makes, %end);
open(my $l, "<", "lib/names.txt") or die "lib/names.txt: $!\n";
while (<$l>) {
	s/#.*//; next unless /\S/;
	my @f = split;
	if ($f[0] eq "verb") { $verb{$f[1]} = 1; $makes{"$f[1] $f[2]"} = 1 }
	elsif ($f[0] eq "end") { $end{$f[1]} = $f[2] }
	else { $noun{$f[0]} = 1 }
}
my $text = "";
for my $h (glob("lib/include/pbench/*.h")) {
	open(my $f, "<", $h) or die "$h: $!\n";
	local $/; $text .= <$f>;
}
$text =~ s{/\*.*?\*/}{ }gs;
$text =~ s{//[^\n]*}{}g;

# Enums: values carry the enum noun.
my %enum;
while ($text =~ /enum\s+pbench_(\w+)\s*\{(.*?)\}/gs) {
	my ($name, $body) = ($1, $2);
	$enum{$name} = 1;
	(my $n = $name) =~ s/_(flags|kind|status|mode|rule|source|level)$//;
	my $prefix = $name eq "error" ? "PBENCH_E" : "PBENCH_" . uc($n) . "_";
	my @wrong = grep { index($_, $prefix) != 0 }
		map { /^\s*(\w+)/ ? $1 : () } split(/,/, $body);
	if (@wrong) {
		bad("enum pbench_$name", "values not named $prefix*: @wrong");
	} else {
		ok("enum pbench_$name values are $prefix*");
	}
}

# Functions: a listed noun, an enum name helper, or a verb constructor.
my (%fn, @fns);
while ($text =~ /PBENCH_API\b[^;{]*?\bpbench_(\w+)\s*\(([^)]*)\)/gs) {
	$fn{$1} = $2; push @fns, $1;
}
my @stray;
for my $f (@fns) {
	next if exists $verb{$f};
	next if $f =~ /^(\w+)_name$/ && $enum{$1};
	my $hit = 0;
	for my $n (keys %noun) { $hit = 1 if $f eq $n || index($f, "${n}_") == 0 }
	push @stray, "pbench_$f" unless $hit;
}
if (@stray) {
	bad("function nouns", "not pbench_<noun>_* for a noun of lib/names.txt: @stray (rename, or add the noun)");
} else {
	ok(scalar(@fns) . " functions are pbench_<noun>_* of lib/names.txt");
}
my @unused = grep { my $n = $_; !grep { $_ eq $n || index($_, "${n}_") == 0 } @fns } sort keys %noun;
if (@unused) { bad("lib/names.txt", "nouns no function uses: @unused") } else { ok("every noun is used") }

# Objects: each constructor (struct pbench_X **out first) makes an object with an end.
my %made;
for my $f (@fns) {
	next unless $fn{$f} =~ /^\s*struct\s+pbench_(\w+)\s*\*\*/;
	my $obj = $1;
	my $verb_ok = $f eq "${obj}_new" || $makes{"$f $obj"} ||
		grep { $f eq "${obj}_$_" && $makes{"$_ $obj"} } keys %verb;
	if ($verb_ok) { ok("pbench_$f makes a pbench_$obj") }
	else { bad("pbench_$f", "makes a struct pbench_$obj but is neither pbench_${obj}_new nor a verb of lib/names.txt") }
	$made{$obj} = 1;
}
for my $o (sort keys %made) {
	my $e = $end{$o} // "pbench_${o}_free";
	(my $short = $e) =~ s/^pbench_//;
	if (exists $fn{$short}) { ok("struct pbench_$o ends with $e") }
	else { bad("struct pbench_$o", "no $e") }
}

# One way to fail (issue 35): a failing call returns a negative errno and says why once, for
# the calling thread, read by pbench_strerror(). No object keeps a failure in words of its own
# (a getter pbench_<noun>_error() or _last_error() giving text), and no function takes a
# buffer of the caller for the reason it failed (a parameter why, or wlen): text a call gives
# as its result is named for what it is (a sentence, a line, a reason, diffs, warn).
my @getters = grep { $_ ne "strerror" }
	($text =~ /PBENCH_API\s+const\s+char\s*\*\s*pbench_(\w*error)\s*\(/g);
if (@getters) {
	bad("error getters", "a failure said by an object, not by pbench_strerror(): " .
	    join(" ", map { "pbench_$_" } @getters));
} else {
	ok("no error getter but pbench_strerror()");
}
my @why = grep { $fn{$_} =~ /\b(why|wlen)\b/ } @fns;
if (@why) {
	bad("why buffers", "a caller\x27s buffer for a failure\x27s reason (say it with pb_fail, " .
	    "read it with pbench_strerror): " . join(" ", map { "pbench_$_" } @why));
} else {
	ok("no function takes a why buffer for its failure");
}
# Nor does an object of the library keep one: no char error[] in a struct of lib/src.
my @kept;
for my $h (glob("lib/src/*/*.h")) {
	open(my $f, "<", $h) or die "$h: $!\n";
	while (<$f>) { push @kept, "$h:$." if /\bchar\s+(error|errmsg|err_text)\s*\[/ }
}
if (@kept) { bad("error strings", "a failure kept in an object: @kept") }
else { ok("no object of lib/src keeps a failure in words") }
print "names: $pass passed, $fail failed, 0 skipped\n";
exit($fail ? 1 : 0);
'
