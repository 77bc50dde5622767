"""Privacy accounting for the shuffle model of differential privacy."""
