CREATE TABLE `trace_citations` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`snapshot_id` integer NOT NULL,
	`workspace_id` integer NOT NULL,
	`reference_id` text NOT NULL,
	`entity_kind` text NOT NULL,
	`entity_id` integer,
	`revision` integer,
	`file` text NOT NULL,
	`line` integer NOT NULL,
	`column` integer NOT NULL,
	`kind` text NOT NULL,
	`test_name` text,
	`snippet` text NOT NULL,
	FOREIGN KEY (`snapshot_id`) REFERENCES `trace_snapshots`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `trace_citations_snapshot_entity` ON `trace_citations` (`snapshot_id`,`entity_kind`,`entity_id`,`kind`);--> statement-breakpoint
CREATE TABLE `trace_commits` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`snapshot_id` integer NOT NULL,
	`workspace_id` integer NOT NULL,
	`sha` text NOT NULL,
	`ids` text NOT NULL,
	`subject` text NOT NULL,
	FOREIGN KEY (`snapshot_id`) REFERENCES `trace_snapshots`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `trace_commits_snapshot` ON `trace_commits` (`snapshot_id`);--> statement-breakpoint
CREATE TABLE `trace_snapshots` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`workspace_id` integer NOT NULL,
	`repository` text NOT NULL,
	`commit_sha` text NOT NULL,
	`branch` text,
	`scanned_at` text NOT NULL,
	`content_hash` text NOT NULL,
	`citation_count` integer NOT NULL,
	`orphan_count` integer NOT NULL,
	`created_by_user_id` integer,
	`created_by_token_id` integer,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`created_by_user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`created_by_token_id`) REFERENCES `tokens`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `trace_snapshots_workspace_repository_commit` ON `trace_snapshots` (`workspace_id`,`repository`,`commit_sha`);--> statement-breakpoint
CREATE INDEX `trace_snapshots_workspace_repository_id` ON `trace_snapshots` (`workspace_id`,`repository`,`id`);