"""The learned evaluation: win chances and expected final scores fitted to how games really ended.

    from thurn_ai.learned import ValueModel
    model = ValueModel.load()                   # the fitted model shipped with the package
    win, score = model.predict(state)           # per player: chance of winning, expected final score

Modules: `features` (what the model reads of a position), `model` (the model: numpy inference, the
weights file), `data` (a seeded, resumable generator of positions and outcomes from games of the bots),
`fit` (the fit, cross-validated), `calibration` (how well said chances match what happened). The search
uses the same model compiled (`mcts(eval=learned)`, cext/thurn_ai/_policy.pyx); docs/learned.md explains it.
"""
from .features import FEATURES, position_features
from .model import ValueModel, default_model, model_from

__all__ = ["FEATURES", "position_features", "ValueModel", "default_model", "model_from"]
