"""What tests, scripts and benchmarks share to drive factline from outside: a scripted model served over
the real OpenAI protocol (scripted_model), the test WordPress (wordpress), the reliability suite
(reliability). It sits above pipeline and imports nothing from tests/; tests, scripts/ and benchmarks/
import it. Shipped in the wheel so that the scripts run from an installed tree.
"""
