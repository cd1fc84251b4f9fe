"""Runtime hooks: factline's claim check inside other agent frameworks (optional extras).

    openai_agents  ClaimCheck around an OpenAI Agents SDK run: nudge, then AgentHallucinationError
    pydanticai     ClaimCheck as a Pydantic AI output validator: ModelRetry with the nudge, then AgentHallucinationError
"""
