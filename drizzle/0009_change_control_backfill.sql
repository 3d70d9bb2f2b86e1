-- Custom SQL migration file, put your code below! --
-- Entities that exist when change control arrives get one revision holding their current state, so their
-- history, baselines and diffs start from it. The snapshots match what the repositories record (same keys,
-- same order: src/db/*.repo.ts columns). Relationships remember their ends' current revisions.
UPDATE `relationships` SET
  `source_revision` = (SELECT `revision` FROM `requirements` WHERE `id` = `relationships`.`source_requirement_id`),
  `target_revision` = (SELECT `revision` FROM `requirements` WHERE `id` = `relationships`.`target_requirement_id`)
WHERE `source_revision` IS NULL OR `target_revision` IS NULL;
--> statement-breakpoint
INSERT INTO `revisions` (`workspace_id`, `entity_kind`, `entity_id`, `reference_id`, `revision`, `op`, `snapshot`, `user_id`, `tool`, `change_note`, `created_at`)
SELECT e.`workspace_id`, 'epic', e.`id`, e.`reference_id`, e.`revision`, CASE WHEN e.`revision` = 1 THEN 'create' ELSE 'update' END,
  json_object('reference_id', e.`reference_id`, 'title', e.`title`, 'description', e.`description`, 'status', e.`status`,
    'priority', e.`priority`, 'creator_username', c.`username`, 'assignee_username', a.`username`, 'revision', e.`revision`,
    'created_at', e.`created_at`, 'updated_at', e.`updated_at`),
  e.`creator_id`, 'migration', 'State when change control was introduced', e.`updated_at`
FROM `epics` e LEFT JOIN `users` c ON c.`id` = e.`creator_id` LEFT JOIN `users` a ON a.`id` = e.`assignee_id`
WHERE NOT EXISTS (SELECT 1 FROM `revisions` r WHERE r.`workspace_id` = e.`workspace_id` AND r.`entity_kind` = 'epic' AND r.`entity_id` = e.`id`);
--> statement-breakpoint
INSERT INTO `revisions` (`workspace_id`, `entity_kind`, `entity_id`, `reference_id`, `revision`, `op`, `snapshot`, `user_id`, `tool`, `change_note`, `created_at`)
SELECT s.`workspace_id`, 'user_story', s.`id`, s.`reference_id`, s.`revision`, CASE WHEN s.`revision` = 1 THEN 'create' ELSE 'update' END,
  json_object('reference_id', s.`reference_id`, 'epic_id', p.`reference_id`, 'title', s.`title`, 'description', s.`description`,
    'status', s.`status`, 'priority', s.`priority`, 'creator_username', c.`username`, 'assignee_username', a.`username`,
    'revision', s.`revision`, 'created_at', s.`created_at`, 'updated_at', s.`updated_at`),
  s.`creator_id`, 'migration', 'State when change control was introduced', s.`updated_at`
FROM `user_stories` s JOIN `epics` p ON p.`id` = s.`epic_id`
  LEFT JOIN `users` c ON c.`id` = s.`creator_id` LEFT JOIN `users` a ON a.`id` = s.`assignee_id`
WHERE NOT EXISTS (SELECT 1 FROM `revisions` r WHERE r.`workspace_id` = s.`workspace_id` AND r.`entity_kind` = 'user_story' AND r.`entity_id` = s.`id`);
--> statement-breakpoint
INSERT INTO `revisions` (`workspace_id`, `entity_kind`, `entity_id`, `reference_id`, `revision`, `op`, `snapshot`, `user_id`, `tool`, `change_note`, `created_at`)
SELECT q.`workspace_id`, 'requirement', q.`id`, q.`reference_id`, q.`revision`, CASE WHEN q.`revision` = 1 THEN 'create' ELSE 'update' END,
  json_object('reference_id', q.`reference_id`, 'user_story_id', s.`reference_id`, 'title', q.`title`, 'description', q.`description`,
    'status', q.`status`, 'priority', q.`priority`, 'type_name', t.`name`, 'creator_username', c.`username`,
    'assignee_username', a.`username`, 'revision', q.`revision`, 'created_at', q.`created_at`, 'updated_at', q.`updated_at`),
  q.`creator_id`, 'migration', 'State when change control was introduced', q.`updated_at`
FROM `requirements` q JOIN `user_stories` s ON s.`id` = q.`user_story_id` JOIN `requirement_types` t ON t.`id` = q.`type_id`
  LEFT JOIN `users` c ON c.`id` = q.`creator_id` LEFT JOIN `users` a ON a.`id` = q.`assignee_id`
WHERE NOT EXISTS (SELECT 1 FROM `revisions` r WHERE r.`workspace_id` = q.`workspace_id` AND r.`entity_kind` = 'requirement' AND r.`entity_id` = q.`id`);
--> statement-breakpoint
INSERT INTO `revisions` (`workspace_id`, `entity_kind`, `entity_id`, `reference_id`, `revision`, `op`, `snapshot`, `user_id`, `tool`, `change_note`, `created_at`)
SELECT k.`workspace_id`, 'acceptance_criterion', k.`id`, k.`reference_id`, k.`revision`, CASE WHEN k.`revision` = 1 THEN 'create' ELSE 'update' END,
  json_object('reference_id', k.`reference_id`, 'user_story_id', s.`reference_id`, 'title', k.`title`, 'description', k.`description`,
    'creator_username', c.`username`, 'revision', k.`revision`, 'created_at', k.`created_at`, 'updated_at', k.`updated_at`),
  k.`creator_id`, 'migration', 'State when change control was introduced', k.`updated_at`
FROM `acceptance_criteria` k JOIN `user_stories` s ON s.`id` = k.`user_story_id` LEFT JOIN `users` c ON c.`id` = k.`creator_id`
WHERE NOT EXISTS (SELECT 1 FROM `revisions` r WHERE r.`workspace_id` = k.`workspace_id` AND r.`entity_kind` = 'acceptance_criterion' AND r.`entity_id` = k.`id`);
--> statement-breakpoint
INSERT INTO `revisions` (`workspace_id`, `entity_kind`, `entity_id`, `reference_id`, `revision`, `op`, `snapshot`, `source_ref`, `target_ref`, `user_id`, `tool`, `change_note`, `created_at`)
SELECT l.`workspace_id`, 'relationship', l.`id`, src.`reference_id` || ' ' || t.`name` || ' ' || tgt.`reference_id`, l.`revision`, 'create',
  json_object('source_requirement_id', src.`reference_id`, 'target_requirement_id', tgt.`reference_id`, 'relationship_type', t.`name`,
    'creator_username', c.`username`, 'created_at', l.`created_at`, 'revision', l.`revision`,
    'source_revision', l.`source_revision`, 'target_revision', l.`target_revision`),
  src.`reference_id`, tgt.`reference_id`, l.`creator_id`, 'migration', 'State when change control was introduced', l.`created_at`
FROM `relationships` l JOIN `requirements` src ON src.`id` = l.`source_requirement_id` JOIN `requirements` tgt ON tgt.`id` = l.`target_requirement_id`
  JOIN `relationship_types` t ON t.`id` = l.`type_id` LEFT JOIN `users` c ON c.`id` = l.`creator_id`
WHERE NOT EXISTS (SELECT 1 FROM `revisions` r WHERE r.`workspace_id` = l.`workspace_id` AND r.`entity_kind` = 'relationship' AND r.`entity_id` = l.`id`);
