"""tuning: arena matches and Optuna studies over agent parameters."""
