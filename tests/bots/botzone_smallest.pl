#!/usr/bin/env perl
# The bot of botzone_smallest.py written again in Perl (core modules only), to Botzone's JSON protocol for its
# Fight the Landlord games: one line in (the requests and this bot's responses so far), one line out.
# Bidding: one more than the highest bid so far if its hand holds a 2 or a joker and the bids are below 3,
# else 0. Play: when leading, the lowest card; when following a single card, the lowest card of a higher rank
# if it has one; else it passes.
use strict;
use warnings;
use JSON::PP;

sub rank { my ($c) = @_; return $c < 52 ? int($c / 4) : $c - 39; }    # 3 .. 2 are 0 .. 12, jokers 13 and 14

sub lowest {
    my @sorted = sort { rank($a) <=> rank($b) or $a <=> $b } @_;
    return $sorted[0];
}

my $line = <STDIN>;
my $game = decode_json($line);
my @requests = @{ $game->{requests} };
my @responses = @{ $game->{responses} };
my $current = $requests[-1];
my $response;
if (exists $current->{bid} && !exists $current->{history}) {
    my $top = 0;
    for my $b (@{ $current->{bid} }) { $top = $b if $b > $top; }
    my $high = grep { $_ >= 48 } @{ $current->{own} };
    $response = ($high && $top < 3) ? $top + 1 : 0;
} else {
    my ($first) = grep { exists $_->{history} } @requests;
    my %hand = map { $_ => 1 } @{ $first->{own} };
    my $landlord = exists $first->{landlord} ? $first->{landlord} : 0;
    my $pos = exists $first->{pos} ? $first->{pos} : -1;
    if ($landlord == $pos) { $hand{$_} = 1 for @{ $first->{publiccard} }; }
    for my $r (@responses) {
        next unless ref $r eq 'ARRAY';
        delete $hand{$_} for @$r;
    }
    my @hand = keys %hand;
    my ($before_last, $last) = @{ $current->{history} };
    my @to_beat = @$last ? @$last : @$before_last;
    if (!@to_beat) {
        $response = [ lowest(@hand) + 0 ];
    } elsif (@to_beat == 1) {
        my @higher = grep { rank($_) > rank($to_beat[0]) } @hand;
        $response = @higher ? [ lowest(@higher) + 0 ] : [];
    } else {
        $response = [];
    }
}
print encode_json({ response => $response }), "\n";
