-- Custom SQL migration file, put your code below! --
-- The title index (issue 16): reference id and title alone, with search_fts's rowids and tokenizer. A large
-- workspace's search ranks the matches with every word in the reference id or title first (search-tier.ts,
-- search-ranking.ts's title page). Asked of search_fts with a column filter, that walk reads every word's
-- whole doclist, text and titles alike (3.5-5 ms for two words at a million rows); here the doclists hold
-- titles only (0.4-0.8 ms), for about 4% more index. Contentless (search_fts holds the text) with
-- contentless_delete, so triggers can delete and replace rows by rowid.
CREATE VIRTUAL TABLE `search_titles` USING fts5(reference_id, title, content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 2');
--> statement-breakpoint
INSERT INTO search_titles(rowid, reference_id, title)
  SELECT workspace_id * 4294967296 + id * 8 + 1, reference_id, title FROM `epics`;
--> statement-breakpoint
INSERT INTO search_titles(rowid, reference_id, title)
  SELECT workspace_id * 4294967296 + id * 8 + 2, reference_id, title FROM `user_stories`;
--> statement-breakpoint
INSERT INTO search_titles(rowid, reference_id, title)
  SELECT workspace_id * 4294967296 + id * 8 + 3, reference_id, title FROM `requirements`;
--> statement-breakpoint
INSERT INTO search_titles(rowid, reference_id, title)
  SELECT workspace_id * 4294967296 + id * 8 + 4, reference_id, title FROM `acceptance_criteria`;
--> statement-breakpoint
CREATE TRIGGER `epics_titles_insert` AFTER INSERT ON `epics` BEGIN
  INSERT INTO search_titles(rowid, reference_id, title) VALUES (new.workspace_id * 4294967296 + new.id * 8 + 1, new.reference_id, new.title);
END;
--> statement-breakpoint
CREATE TRIGGER `epics_titles_update` AFTER UPDATE OF reference_id, title ON `epics` BEGIN
  UPDATE search_titles SET reference_id = new.reference_id, title = new.title WHERE rowid = new.workspace_id * 4294967296 + new.id * 8 + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `epics_titles_delete` AFTER DELETE ON `epics` BEGIN
  DELETE FROM search_titles WHERE rowid = old.workspace_id * 4294967296 + old.id * 8 + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `user_stories_titles_insert` AFTER INSERT ON `user_stories` BEGIN
  INSERT INTO search_titles(rowid, reference_id, title) VALUES (new.workspace_id * 4294967296 + new.id * 8 + 2, new.reference_id, new.title);
END;
--> statement-breakpoint
CREATE TRIGGER `user_stories_titles_update` AFTER UPDATE OF reference_id, title ON `user_stories` BEGIN
  UPDATE search_titles SET reference_id = new.reference_id, title = new.title WHERE rowid = new.workspace_id * 4294967296 + new.id * 8 + 2;
END;
--> statement-breakpoint
CREATE TRIGGER `user_stories_titles_delete` AFTER DELETE ON `user_stories` BEGIN
  DELETE FROM search_titles WHERE rowid = old.workspace_id * 4294967296 + old.id * 8 + 2;
END;
--> statement-breakpoint
CREATE TRIGGER `requirements_titles_insert` AFTER INSERT ON `requirements` BEGIN
  INSERT INTO search_titles(rowid, reference_id, title) VALUES (new.workspace_id * 4294967296 + new.id * 8 + 3, new.reference_id, new.title);
END;
--> statement-breakpoint
CREATE TRIGGER `requirements_titles_update` AFTER UPDATE OF reference_id, title ON `requirements` BEGIN
  UPDATE search_titles SET reference_id = new.reference_id, title = new.title WHERE rowid = new.workspace_id * 4294967296 + new.id * 8 + 3;
END;
--> statement-breakpoint
CREATE TRIGGER `requirements_titles_delete` AFTER DELETE ON `requirements` BEGIN
  DELETE FROM search_titles WHERE rowid = old.workspace_id * 4294967296 + old.id * 8 + 3;
END;
--> statement-breakpoint
CREATE TRIGGER `acceptance_criteria_titles_insert` AFTER INSERT ON `acceptance_criteria` BEGIN
  INSERT INTO search_titles(rowid, reference_id, title) VALUES (new.workspace_id * 4294967296 + new.id * 8 + 4, new.reference_id, new.title);
END;
--> statement-breakpoint
CREATE TRIGGER `acceptance_criteria_titles_update` AFTER UPDATE OF reference_id, title ON `acceptance_criteria` BEGIN
  UPDATE search_titles SET reference_id = new.reference_id, title = new.title WHERE rowid = new.workspace_id * 4294967296 + new.id * 8 + 4;
END;
--> statement-breakpoint
CREATE TRIGGER `acceptance_criteria_titles_delete` AFTER DELETE ON `acceptance_criteria` BEGIN
  DELETE FROM search_titles WHERE rowid = old.workspace_id * 4294967296 + old.id * 8 + 4;
END;
