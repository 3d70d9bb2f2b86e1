CREATE TABLE `approvals` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`workspace_id` integer NOT NULL,
	`entity_kind` text NOT NULL,
	`entity_id` integer NOT NULL,
	`reference_id` text NOT NULL,
	`revision` integer NOT NULL,
	`user_id` integer NOT NULL,
	`verdict` text NOT NULL,
	`comment` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `approvals_entity` ON `approvals` (`workspace_id`,`entity_kind`,`entity_id`,`revision`);--> statement-breakpoint
CREATE TABLE `baseline_entries` (
	`workspace_id` integer NOT NULL,
	`baseline_id` integer NOT NULL,
	`entity_kind` text NOT NULL,
	`entity_id` integer NOT NULL,
	`revision` integer NOT NULL,
	PRIMARY KEY(`baseline_id`, `entity_kind`, `entity_id`),
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`baseline_id`) REFERENCES `baselines`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `baselines` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`workspace_id` integer NOT NULL,
	`name` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`epic_id` integer,
	`epic_reference_id` text,
	`creator_id` integer,
	`entry_count` integer DEFAULT 0 NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`creator_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `baselines_workspace_name` ON `baselines` (`workspace_id`,`name`);--> statement-breakpoint
CREATE TABLE `comments` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`workspace_id` integer NOT NULL,
	`entity_kind` text NOT NULL,
	`entity_id` integer NOT NULL,
	`reference_id` text NOT NULL,
	`revision` integer NOT NULL,
	`user_id` integer,
	`text` text NOT NULL,
	`resolved_at` text,
	`resolved_by_id` integer,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`resolved_by_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `comments_entity` ON `comments` (`workspace_id`,`reference_id`);--> statement-breakpoint
CREATE TABLE `review_requests` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`workspace_id` integer NOT NULL,
	`entity_kind` text NOT NULL,
	`entity_id` integer NOT NULL,
	`reference_id` text NOT NULL,
	`revision` integer NOT NULL,
	`requested_by_id` integer,
	`reviewer_id` integer NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`verdict_revision` integer,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`requested_by_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`reviewer_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `review_requests_entity_reviewer` ON `review_requests` (`workspace_id`,`reference_id`,`reviewer_id`);--> statement-breakpoint
CREATE INDEX `review_requests_reviewer` ON `review_requests` (`workspace_id`,`reviewer_id`);--> statement-breakpoint
CREATE TABLE `revisions` (
	`id` integer PRIMARY KEY NOT NULL,
	`workspace_id` integer NOT NULL,
	`entity_kind` text NOT NULL,
	`entity_id` integer NOT NULL,
	`reference_id` text NOT NULL,
	`revision` integer NOT NULL,
	`op` text NOT NULL,
	`snapshot` text NOT NULL,
	`source_ref` text,
	`target_ref` text,
	`user_id` integer,
	`token_id` integer,
	`request_id` text,
	`tool` text,
	`change_note` text,
	`source` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`token_id`) REFERENCES `tokens`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `revisions_entity_revision` ON `revisions` (`workspace_id`,`entity_kind`,`entity_id`,`revision`);--> statement-breakpoint
CREATE INDEX `revisions_reference` ON `revisions` (`workspace_id`,`reference_id`);--> statement-breakpoint
CREATE INDEX `revisions_source_ref` ON `revisions` (`workspace_id`,`source_ref`) WHERE "revisions"."source_ref" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `revisions_target_ref` ON `revisions` (`workspace_id`,`target_ref`) WHERE "revisions"."target_ref" IS NOT NULL;--> statement-breakpoint
ALTER TABLE `relationships` ADD `revision` integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE `relationships` ADD `source_revision` integer;--> statement-breakpoint
ALTER TABLE `relationships` ADD `target_revision` integer;