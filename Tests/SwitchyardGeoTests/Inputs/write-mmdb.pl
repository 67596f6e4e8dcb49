#!/usr/bin/perl
# Writes a small MaxMind-format database for the geo tests: write-mmdb.pl OUT.mmdb < networks.json
# networks.json: {"ip_version": 4 or 6, "type": "...", "networks": [{"network": "CIDR", "data": {...}}]}
# where data holds continent.code, country.iso_code, subdivisions[].iso_code, city.names.en.
use strict;
use warnings;
use JSON::PP;
use MaxMind::DB::Writer::Tree;

my $out = shift @ARGV or die "usage: write-mmdb.pl OUT.mmdb < networks.json\n";
my $spec = decode_json(do { local $/; <STDIN> });
my %types = (
    continent => 'map', code => 'utf8_string', country => 'map', iso_code => 'utf8_string',
    subdivisions => ['array', 'map'], city => 'map', names => 'map', en => 'utf8_string',
);
my $tree = MaxMind::DB::Writer::Tree->new(
    ip_version            => $spec->{ip_version},
    record_size           => 24,
    database_type         => $spec->{type} // 'Switchyard-Test-City',
    languages             => ['en'],
    description           => { en => 'Switchyard geo test database' },
    map_key_type_callback => sub { $types{ $_[0] } },
    alias_ipv6_to_ipv4    => ($spec->{ip_version} == 6 ? 1 : 0),
    # The tests use the documentation networks (198.51.100.0/24, 2001:db8::/32), which the
    # writer leaves out by default.
    remove_reserved_networks => 0,
);
for my $n (@{ $spec->{networks} }) {
    $tree->insert_network($n->{network}, $n->{data});
}
open my $fh, '>:raw', $out or die "cannot write $out: $!\n";
$tree->write_tree($fh);
close $fh or die "cannot write $out: $!\n";
