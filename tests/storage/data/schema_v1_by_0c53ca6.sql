-- A database made by durak-bot at commit 0c53ca6 (bot/storage.py, before the storage package):
-- one finished series with stats (channel 100), a live game after 5 actions (channel 200) and
-- an open lobby (channel 300), guild 10, stopped gracefully; dumped with sqlite3 iterdump.
BEGIN TRANSACTION;
CREATE TABLE game_players (
                game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
                seat INTEGER NOT NULL,
                guild_id INTEGER NOT NULL,
                user_id INTEGER NOT NULL,
                profile TEXT NOT NULL,
                name TEXT NOT NULL,
                lost INTEGER NOT NULL CHECK (lost IN (0, 1)),
                draw INTEGER NOT NULL CHECK (draw IN (0, 1)),
                ended_at REAL NOT NULL,
                PRIMARY KEY (game_id, seat)
            );
INSERT INTO "game_players" VALUES(1,0,10,1,'podkidnoy','Alice',0,1,1700000000.0);
INSERT INTO "game_players" VALUES(1,1,10,2,'podkidnoy','Bob',0,1,1700000000.0);
CREATE TABLE games (
                id INTEGER PRIMARY KEY,
                series_id INTEGER NOT NULL REFERENCES series(id),
                guild_id INTEGER NOT NULL,
                channel_id INTEGER NOT NULL,
                profile TEXT NOT NULL,
                rules TEXT NOT NULL,
                seats TEXT NOT NULL,
                seed INTEGER NOT NULL,
                deal TEXT NOT NULL,
                actions TEXT,
                result TEXT NOT NULL DEFAULT 'live'
                    CHECK (result IN ('live', 'loss', 'draw', 'aborted')),
                loser_seat INTEGER,
                started_at REAL NOT NULL,
                ended_at REAL
            );
INSERT INTO "games" VALUES(1,1,10,100,'podkidnoy','{"throw_in": "neighbours", "first_round_limit": 6, "transfer": false}','[{"user_id": 1, "name": "Alice", "ai_level": null}, {"user_id": 2, "name": "Bob", "ai_level": null}]',1,'{"hands": [["6♠", "6♥", "6♦", "7♥", "8♣", "A♥"], ["7♦", "8♠", "9♠", "J♥", "K♥", "A♦"]], "stock": ["A♣", "9♥", "Q♥", "7♠", "K♠", "10♠", "J♠", "8♦", "K♦", "6♣", "9♣", "10♣", "9♦", "Q♦", "K♣", "A♠", "Q♣", "8♥", "10♥", "J♦", "J♣", "Q♠", "7♣", "10♦"], "trump": "♦", "leader": 0, "first_round": true, "discard": [], "dealer": 1, "shown": ["6♦"], "seed": 1, "first_of_series": true}','["0 attack 6♠", "1 defend 6♠ 7♦", "0 attack 6♥", "1 defend 6♥ J♥", "0 attack 6♦", "1 defend 6♦ A♦", "0 attack 7♥", "1 defend 7♥ K♥", "0 attack A♥", "1 take", "0 attack 7♠", "1 defend 7♠ 6♦", "1 attack 6♠", "0 defend 6♠ 10♠", "1 attack 6♥", "0 defend 6♥ 9♥", "1 attack 9♠", "0 defend 9♠ K♠", "1 attack K♥", "0 take", "1 attack 7♥", "0 defend 7♥ 9♥", "1 attack 7♦", "0 take", "1 attack 8♠", "0 defend 8♠ 7♦", "1 attack 8♦", "0 take", "1 attack 6♣", "0 defend 6♣ 7♦", "0 attack 6♠", "1 defend 6♠ J♠", "0 attack 6♥", "1 defend 6♥ J♥", "1 attack 9♦", "0 take", "1 attack 9♣", "1 attack 10♣", "0 defend 10♣ 8♦", "0 attack 7♥", "1 defend 7♥ Q♦", "0 attack Q♥", "1 defend Q♥ K♦", "0 attack K♠", "1 defend K♠ A♠", "0 attack K♥", "1 defend K♥ A♥", "0 attack A♣", "1 defend A♣ A♦", "1 attack 8♥", "0 defend 8♥ 9♥", "0 attack 8♠", "1 defend 8♠ J♦", "0 attack 8♣", "1 defend 8♣ J♣", "1 attack 10♥", "0 defend 10♥ 9♦", "0 attack 7♣", "1 defend 7♣ Q♣", "1 attack Q♠", "0 defend Q♠ 10♦", "0 attack 9♠", "1 take", "0 attack 9♣", "1 defend 9♣ K♣", "1 attack 9♠", "0 defend 9♠ 10♠"]','draw',NULL,1700000000.0,1700000000.0);
INSERT INTO "games" VALUES(2,2,10,200,'podkidnoy','{"throw_in": "neighbours", "first_round_limit": 6, "transfer": false}','[{"user_id": 1, "name": "Alice", "ai_level": null}, {"user_id": 2, "name": "Bob", "ai_level": null}]',2,'{"hands": [["6♥", "7♣", "Q♥", "K♠", "K♦", "A♣"], ["8♦", "9♥", "10♥", "Q♠", "Q♦", "A♠"]], "stock": ["A♦", "8♥", "10♠", "7♥", "J♣", "8♠", "9♠", "J♠", "A♥", "7♦", "Q♣", "K♣", "10♦", "9♦", "7♠", "8♣", "6♠", "6♣", "10♣", "J♥", "9♣", "J♦", "6♦", "K♥"], "trump": "♥", "leader": 0, "first_round": true, "discard": [], "dealer": 0, "shown": ["6♥"], "seed": 2, "first_of_series": true}',NULL,'live',NULL,1700000000.0,NULL);
CREATE TABLE live_games (
                game_id INTEGER PRIMARY KEY REFERENCES games(id),
                channel_id INTEGER NOT NULL UNIQUE,
                series_id INTEGER NOT NULL REFERENCES series(id),
                snapshot TEXT NOT NULL,
                meta TEXT NOT NULL,
                version INTEGER NOT NULL,
                updated_at REAL NOT NULL
            );
INSERT INTO "live_games" VALUES(2,200,2,'{"format":1,"rules":{"throw_in":"neighbours","first_round_limit":6,"transfer":false},"players":2,"deal":{"hands":[["6♥","7♣","Q♥","K♠","K♦","A♣"],["8♦","9♥","10♥","Q♠","Q♦","A♠"]],"stock":["A♦","8♥","10♠","7♥","J♣","8♠","9♠","J♠","A♥","7♦","Q♣","K♣","10♦","9♦","7♠","8♣","6♠","6♣","10♣","J♥","9♣","J♦","6♦","K♥"],"trump":"♥","leader":0,"first_round":true,"discard":[],"dealer":0,"shown":["6♥"],"seed":2,"first_of_series":true},"actions":["0 attack 6♥","1 defend 6♥ 9♥","1 attack 8♥","0 defend 8♥ Q♥","1 attack 8♦"],"state":{"round":2,"first_round":false,"trump":"♥","trump_card":"K♥","stock":22,"discard":["6♥","9♥"],"hands":[["7♣","K♠","K♦","A♦","A♣"],["10♥","Q♠","Q♦","A♠"]],"out":[],"leader":1,"attacker":1,"defender":0,"limit":6,"table":[["8♥","Q♥"],["8♦",null]],"taking":false,"to_act":0,"finished":false,"loser":null,"draw":false}}','{"seed": 2, "started_at": 1700000000.0, "deadline": 1700000060.0, "remaining": 60.0, "timeouts": [0, 0], "autopilot": [false, false], "recent": [[0, "attack", ["6♥"], null], [1, "defend", ["6♥", "9♥"], null], [1, "attack", ["8♥"], null], [0, "defend", ["8♥", "Q♥"], null], [1, "attack", ["8♦"], null]]}',5,1700000000.0);
CREATE TABLE lobbies (
                channel_id INTEGER PRIMARY KEY,
                guild_id INTEGER NOT NULL,
                data TEXT NOT NULL,
                updated_at REAL NOT NULL
            );
INSERT INTO "lobbies" VALUES(300,10,'{"host_id": 2, "host_name": "Bob", "options": {"rules": "podkidnoy", "transfer": null, "throw_in": null, "first_round_limit": null, "turn_timeout": null, "seats": 6}, "seats": [{"user_id": 2, "name": "Bob", "ai_level": null}], "created_at": 1700000000.0}',1700000000.0);
CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP);
INSERT INTO "schema_version" VALUES(1,'2026-12-01 15:54:41');
CREATE TABLE series (
                id INTEGER PRIMARY KEY,
                guild_id INTEGER NOT NULL,
                channel_id INTEGER NOT NULL,
                host_id INTEGER NOT NULL,
                host_name TEXT NOT NULL,
                profile TEXT NOT NULL,
                rules TEXT NOT NULL,
                options TEXT NOT NULL,
                status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'ended')),
                games INTEGER NOT NULL DEFAULT 0,
                draws INTEGER NOT NULL DEFAULT 0,
                last_dealer INTEGER,
                last_loser INTEGER,
                last_game_id INTEGER,
                created_at REAL NOT NULL,
                ended_at REAL
            );
INSERT INTO "series" VALUES(1,10,100,1,'Alice','podkidnoy','{"throw_in": "neighbours", "first_round_limit": 6, "transfer": false}','{"rules": "podkidnoy", "transfer": null, "throw_in": null, "first_round_limit": null, "turn_timeout": null, "seats": 6}','active',1,1,1,NULL,1,1700000000.0,NULL);
INSERT INTO "series" VALUES(2,10,200,1,'Alice','podkidnoy','{"throw_in": "neighbours", "first_round_limit": 6, "transfer": false}','{"rules": "podkidnoy", "transfer": null, "throw_in": null, "first_round_limit": null, "turn_timeout": null, "seats": 6}','active',0,0,NULL,NULL,2,1700000000.0,NULL);
CREATE TABLE series_players (
                series_id INTEGER NOT NULL REFERENCES series(id) ON DELETE CASCADE,
                seat INTEGER NOT NULL,
                user_id INTEGER,
                name TEXT NOT NULL,
                ai_level TEXT,
                losses INTEGER NOT NULL DEFAULT 0,
                PRIMARY KEY (series_id, seat)
            );
INSERT INTO "series_players" VALUES(1,0,1,'Alice',NULL,0);
INSERT INTO "series_players" VALUES(1,1,2,'Bob',NULL,0);
INSERT INTO "series_players" VALUES(2,0,1,'Alice',NULL,0);
INSERT INTO "series_players" VALUES(2,1,2,'Bob',NULL,0);
CREATE UNIQUE INDEX series_active_channel ON series(channel_id) WHERE status = 'active';
CREATE INDEX games_series ON games(series_id);
CREATE INDEX games_guild_ended ON games(guild_id, ended_at);
CREATE INDEX game_players_board ON game_players(guild_id, profile, user_id, lost, draw);
CREATE INDEX game_players_board_all ON game_players(guild_id, user_id, lost, draw);
CREATE INDEX game_players_user ON game_players(guild_id, user_id, ended_at);
COMMIT;
