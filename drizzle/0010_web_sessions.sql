CREATE TABLE `web_sessions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id_hash` text NOT NULL,
	`token_id` integer NOT NULL,
	`user_id` integer NOT NULL,
	`workspace_id` integer NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	`expires_at` text NOT NULL,
	`revoked_at` text,
	FOREIGN KEY (`token_id`) REFERENCES `tokens`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `web_sessions_id_hash_unique` ON `web_sessions` (`id_hash`);--> statement-breakpoint
CREATE INDEX `web_sessions_user` ON `web_sessions` (`workspace_id`,`user_id`);