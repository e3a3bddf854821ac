import EvalBench

print("evalbench")
