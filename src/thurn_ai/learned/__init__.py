"""The learned evaluation: win chances and expected final scores fitted to how games really ended.

    from thurn_ai.learned import ValueModel
    model = ValueModel.load()                   # the fitted model shipped with the package
    win, score = model.predict(state)           # per player: chance of winning, expected final score

This folder holds what the search reads at play time: `features` (what the model reads of a position),
`model` (the model: numpy inference, the weights file), `win_map` (the hint's win share as a win chance),
`prior` (the learned move prior) and their weights files. The search uses the same model compiled
(`mcts(eval=learned)`, cext/thurn_ai/_policy.pyx). How they were made -- the training games, the fits, the
calibration -- is a study: thurn_ai.studies.learned (and studies.expert for the prior); docs/learned.md
explains it.
"""
from .features import FEATURES, position_features
from .model import ValueModel, default_model, model_from

__all__ = ["FEATURES", "position_features", "ValueModel", "default_model", "model_from"]
