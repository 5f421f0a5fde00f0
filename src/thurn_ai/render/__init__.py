"""The game drawn for people: text (views, phase help, move-log lines, end of game) and the PNG board.

    text    plain text, used by the human bot, the command line, the web app and the adapters
    board   the board as a matplotlib figure / PNG (imports matplotlib: import it only to draw)
"""
