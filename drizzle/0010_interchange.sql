ALTER TABLE `acceptance_criteria` ADD `external_id` text;--> statement-breakpoint
ALTER TABLE `acceptance_criteria` ADD `attributes` text;--> statement-breakpoint
CREATE UNIQUE INDEX `acceptance_criteria_workspace_external` ON `acceptance_criteria` (`workspace_id`,`external_id`) WHERE "acceptance_criteria"."external_id" IS NOT NULL;--> statement-breakpoint
ALTER TABLE `epics` ADD `external_id` text;--> statement-breakpoint
ALTER TABLE `epics` ADD `attributes` text;--> statement-breakpoint
CREATE UNIQUE INDEX `epics_workspace_external` ON `epics` (`workspace_id`,`external_id`) WHERE "epics"."external_id" IS NOT NULL;--> statement-breakpoint
ALTER TABLE `requirements` ADD `external_id` text;--> statement-breakpoint
ALTER TABLE `requirements` ADD `attributes` text;--> statement-breakpoint
CREATE UNIQUE INDEX `requirements_workspace_external` ON `requirements` (`workspace_id`,`external_id`) WHERE "requirements"."external_id" IS NOT NULL;--> statement-breakpoint
ALTER TABLE `user_stories` ADD `external_id` text;--> statement-breakpoint
ALTER TABLE `user_stories` ADD `attributes` text;--> statement-breakpoint
CREATE UNIQUE INDEX `user_stories_workspace_external` ON `user_stories` (`workspace_id`,`external_id`) WHERE "user_stories"."external_id" IS NOT NULL;