import EvalBench
