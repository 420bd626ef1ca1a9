# The instant fake agent of bench/cost-ratios.bench.mjs, run by test/fixtures/bin/claude (as
# default.sh) in the agent's cwd: marks the first open story of $BENCH_PRD as passing, then prints
# a three-line stream-json; its result carries the completion promise once no story is open.
sed -i '0,/"passes": false/s//"passes": true/' "$BENCH_PRD"
text='One story done.'
if ! grep -q '"passes": false' "$BENCH_PRD"; then text='All done. <promise>COMPLETE</promise>'; fi
echo '{"type":"system","subtype":"init","cwd":"/repo","session_id":"session-bench","tools":["Bash"],"mcp_servers":[],"model":"claude-sonnet-5-5","permissionMode":"acceptEdits","apiKeySource":"ANTHROPIC_API_KEY","claude_code_version":"2.1.330","output_style":"default"}'
echo '{"type":"assistant","message":{"model":"claude-sonnet-5-5","id":"msg_bench","type":"message","role":"assistant","content":[{"type":"text","text":"'"$text"'"}],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":2,"output_tokens":6}},"parent_tool_use_id":null,"session_id":"session-bench"}'
echo '{"type":"result","subtype":"success","is_error":false,"duration_ms":10,"num_turns":1,"result":"'"$text"'","stop_reason":"end_turn","session_id":"session-bench","total_cost_usd":0.001,"usage":{"input_tokens":2,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":6},"permission_denials":[],"terminal_reason":"completed"}'
