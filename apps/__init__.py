"""The entry points: the commands that start something (the Discord bot, ``durak-bot web``,
``durak-bot play``, the benches, the maintenance commands).  They compose the layers below
(service, presentation, adapters); nothing imports them."""
