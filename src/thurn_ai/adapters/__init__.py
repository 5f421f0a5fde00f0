"""The game in other frameworks' terms: OpenSpiel (openspiel, with its action and tensor encoding in
encoding), PettingZoo (pettingzoo) and Gymnasium (gym). Each imports its framework, so none is imported
here: `import thurn_ai.adapters.openspiel` registers the game with pyspiel."""
