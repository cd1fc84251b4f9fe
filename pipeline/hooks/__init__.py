"""Runtime hooks: factline's claim check inside other agent frameworks (optional extras).

    openai_agents  ClaimCheck around an OpenAI Agents SDK run: nudge, then AgentHallucinationError
"""
