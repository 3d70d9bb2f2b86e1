DROP INDEX `tokens_user`;--> statement-breakpoint
CREATE INDEX `tokens_user_workspace` ON `tokens` (`user_id`,`workspace_id`,`id`);--> statement-breakpoint
CREATE INDEX `relationships_workspace_id` ON `relationships` (`workspace_id`,`id`);--> statement-breakpoint
CREATE INDEX `trace_citations_pinned` ON `trace_citations` (`snapshot_id`,`file`,`line`,`reference_id`,`id`) WHERE "trace_citations"."revision" IS NOT NULL;