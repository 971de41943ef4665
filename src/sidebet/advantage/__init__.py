"""Advantage play at the whole table: counts, index plays, bet ramps, the counter's win,
risk of ruin and SCORE for the Blackjack wager and the side wagers together
(``docs/advantage.md``)."""
