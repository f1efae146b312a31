"""What the benchmarks set up alike (Django set up first): a GM's campaign of characters,
each created through the service (logged), as a GM's table has them."""


def characters(campaign, gm, count: int) -> list[int]:
    """`count` characters « Personnage 00 » … in `campaign`: 14 PV, 10 Flux, no PA, every
    stat at 2. Their ids, in order."""
    from play import services

    stats = dict.fromkeys(campaign.stats, 2)
    return [
        services.character_create(
            campaign_id=campaign.pk,
            actor=gm,
            name=f"Personnage {i:02}",
            pv_max=14,
            flux_max=10,
            stats=stats,
            pa=0,
        ).character_ids[0]
        for i in range(count)
    ]
