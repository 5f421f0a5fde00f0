"""Playing games: one game (match), tournaments, analysing a position with a search bot, speed measurements,
and worker processes that end with the process that started them."""
