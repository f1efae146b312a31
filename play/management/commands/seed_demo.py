"""Load the demo campaign: a GM, two players, four characters. Safe to run again."""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction

from campaign.models import Campaign, Membership, Role
from characters.models import Character, Kind
from play import services

DEMO_PASSWORD = "demo"
DEMO_CAMPAIGN = "Les Ruines d’Ysmir"
USERS = [("mj", Role.GM), ("alice", Role.PLAYER), ("bruno", Role.PLAYER)]
CHARACTERS = [
    # name, kind, owner, stats (ADR PUI INS PRE VAI SAV ESP), pv_max, flux_max, pa
    ("Aveline", Kind.PC, "alice", (3, 1, 2, 1, 2, 0, 1), 14, 10, 2),
    ("Bastien", Kind.PC, "bruno", (1, 3, 0, 1, 3, 1, 0), 18, 6, 4),
    ("Corentin", Kind.PC, None, (0, 0, 2, 2, 1, 3, 3), 10, 14, 1),
    ("Le Bandit borgne", Kind.NPC, None, (2, 2, 1, 0, 1, 0, 0), 12, 4, 2),
]


class Command(BaseCommand):
    help = "Create (or bring back) the demo campaign, its GM, two players and four characters."

    @transaction.atomic
    def handle(self, *args, **options):
        User = get_user_model()
        users = {}
        for username, _role in USERS:
            user, created = User.objects.get_or_create(username=username)
            if created or not user.check_password(DEMO_PASSWORD):
                user.set_password(DEMO_PASSWORD)
                user.save()
            users[username] = user
        # Its name had a straight apostrophe before: a database seeded then keeps its campaign.
        names = (DEMO_CAMPAIGN, DEMO_CAMPAIGN.replace("’", "'"))
        campaign = Campaign.objects.filter(name__in=names).order_by("pk").first()
        if campaign is None:
            campaign = Campaign.objects.create(name=DEMO_CAMPAIGN)
        for username, role in USERS:
            Membership.objects.update_or_create(
                campaign=campaign, user=users[username], defaults={"role": role}
            )
        for name, kind, owner, stats, pv_max, flux_max, pa in CHARACTERS:
            if Character.objects.filter(campaign=campaign, name=name).exists():
                continue
            # Through the service, so that the history starts with each character's sheet.
            services.character_create(
                campaign_id=campaign.pk,
                actor=users["mj"],
                name=name,
                kind=kind,
                owner=users.get(owner),
                stats=dict(zip(campaign.stats, stats, strict=True)),
                pv_max=pv_max,
                flux_max=flux_max,
                pa=pa,
            )
        self.stdout.write(
            f"Demo campaign “{campaign.name}” ready (id {campaign.pk}). "
            f"Logins (password “{DEMO_PASSWORD}”): mj (GM), alice, bruno (players)."
        )
