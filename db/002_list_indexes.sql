-- Indexes for the explorer's sorted, paged trajectory list (every sort key, ties by id).
CREATE INDEX trajectory_agent_id ON trajectory(agent, id);
CREATE INDEX trajectory_resolved_id ON trajectory(resolved, id);
CREATE INDEX trajectory_steps_id ON trajectory(n_steps, id);
CREATE INDEX trajectory_instance_id ON trajectory(instance, id);
CREATE INDEX explanation_trajectory_kind ON explanation(trajectory, kind);
CREATE INDEX agent_name ON agent(name, id);
-- Superseded by trajectory_agent_id, which also orders ties by id.
DROP INDEX trajectory_agent;
