CREATE INDEX `requirements_workspace` ON `requirements` (`workspace_id`);--> statement-breakpoint
CREATE INDEX `user_stories_workspace` ON `user_stories` (`workspace_id`);