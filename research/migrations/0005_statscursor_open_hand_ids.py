from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('research', '0004_match_hands_done'),
    ]

    operations = [
        migrations.AddField(
            model_name='statscursor',
            name='open_hand_ids',
            field=models.JSONField(blank=True, default=list),
        ),
    ]
